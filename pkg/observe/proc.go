package observe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat. It
// is 100 on every Linux architecture Go supports; reading it needs sysconf.
const clockTicks = 100

var pageSize = float64(os.Getpagesize())

// procStat is what the sampler takes from /proc/PID/stat.
type procStat struct {
	comm       string
	cpuSeconds float64 // utime + stime
	rssBytes   float64
}

// parseStat parses /proc/PID/stat. The command name is in parentheses and
// may itself hold spaces and parentheses, so fields are counted from the
// last ')'.
func parseStat(b []byte) (procStat, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("no (comm) in %q", b)
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state): utime is field 14, stime 15, rss 24.
	if len(f) < 22 {
		return procStat{}, fmt.Errorf("%d fields after comm, want at least 22", len(f))
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	rss, err3 := strconv.ParseFloat(f[21], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, fmt.Errorf("bad utime/stime/rss in %q", b)
	}
	return procStat{comm: string(b[open+1 : end]), cpuSeconds: (ut + st) / clockTicks, rssBytes: rss * pageSize}, nil
}

func readStat(proc string, pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// matchesName tells whether a process is the program name: its comm (cut
// by the kernel to 15 bytes) or the base name of its argv[0].
func matchesName(name, comm string, cmdline []byte) bool {
	if comm == name || (len(name) > 15 && comm == name[:15]) {
		return true
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return len(argv0) > 0 && filepath.Base(string(argv0)) == name
}

// findByName lists the pids of processes running program name.
func findByName(proc, name string) ([]int, error) {
	entries, err := os.ReadDir(proc)
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join(proc, e.Name(), "comm"))
		if err != nil {
			continue
		}
		c := strings.TrimSuffix(string(comm), "\n")
		if c == name || (len(name) > 15 && c == name[:15]) {
			out = append(out, pid)
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(proc, e.Name(), "cmdline"))
		if matchesName(name, c, cmdline) {
			out = append(out, pid)
		}
	}
	return out, nil
}
