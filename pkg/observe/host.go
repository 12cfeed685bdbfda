package observe

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// HostReading is the whole host's CPU time at one moment, from /proc/stat,
// with this process's own. Two readings give a phase's results.HostCPU.
type HostReading struct {
	Time time.Time
	// Busy, Steal and Total are seconds summed over the CPUs.
	Busy, Steal, Total float64
	CPUs               int
	// Self is this process's CPU seconds.
	Self float64
}

// ReadHost reads /proc/stat and this process's stat under proc ("/proc"
// when empty).
func ReadHost(proc string) (HostReading, error) {
	if proc == "" {
		proc = "/proc"
	}
	now := time.Now()
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return HostReading{}, fmt.Errorf("reading the host's CPU time: %w", err)
	}
	h, err := parseHostStat(b)
	if err != nil {
		return HostReading{}, fmt.Errorf("reading the host's CPU time: %s: %w", filepath.Join(proc, "stat"), err)
	}
	self, err := readStat(proc, os.Getpid())
	if err != nil {
		return HostReading{}, fmt.Errorf("reading authbench's CPU time: %w", err)
	}
	h.Time, h.Self = now, self.cpuSeconds
	return h, nil
}

// cpuFields are the columns of a cpu line of /proc/stat, in USER_HZ:
// user nice system idle iowait irq softirq steal guest guest_nice. Guest
// time is already counted in user and nice.
const (
	colIdle, colIOWait, colSteal = 3, 4, 7
	minCPUCols                   = 4 // kernels before 2.6 stop at idle
	maxCPUCols                   = 8 // steal; guest columns are in user
)

// parseHostStat reads the aggregate "cpu" line of /proc/stat and counts
// the per-CPU lines.
func parseHostStat(b []byte) (HostReading, error) {
	var h HostReading
	seen := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			if _, err := strconv.Atoi(f[0][3:]); err == nil {
				h.CPUs++
			}
			continue
		}
		if seen {
			return HostReading{}, fmt.Errorf("two aggregate cpu lines")
		}
		seen = true
		if err := h.addCPULine(f[1:]); err != nil {
			return HostReading{}, err
		}
	}
	switch {
	case !seen:
		return HostReading{}, fmt.Errorf("no aggregate cpu line")
	case h.CPUs == 0:
		return HostReading{}, fmt.Errorf("no per-CPU line")
	}
	return h, nil
}

// addCPULine sums the aggregate line's columns into h.
func (h *HostReading) addCPULine(cols []string) error {
	if len(cols) < minCPUCols {
		return fmt.Errorf("cpu line has %d columns, want at least %d", len(cols), minCPUCols)
	}
	for i, c := range cols[:min(len(cols), maxCPUCols)] {
		v, err := strconv.ParseUint(c, 10, 64)
		if err != nil {
			return fmt.Errorf("cpu line, column %d: %w", i+1, err)
		}
		s := float64(v) / clockTicks
		h.Total += s
		switch i {
		case colIdle, colIOWait:
		case colSteal:
			h.Steal += s
			h.Busy += s
		default:
			h.Busy += s
		}
	}
	return nil
}

// HostWindow is the host's CPU between readings a and b, nil when they
// cannot be compared (same moment, counters gone backwards, CPUs changed).
func HostWindow(a, b HostReading) *results.HostCPU {
	secs := b.Time.Sub(a.Time).Seconds()
	total := b.Total - a.Total
	busy, steal, self := b.Busy-a.Busy, b.Steal-a.Steal, b.Self-a.Self
	if secs <= 0 || total <= 0 || busy < 0 || steal < 0 || self < 0 || a.CPUs != b.CPUs || a.CPUs == 0 {
		return nil
	}
	// The busy share of all CPU time, times the CPUs: the mean busy cores,
	// exact whatever the kernel's tick granularity did to the wall span.
	cores := float64(b.CPUs)
	return &results.HostCPU{CPUs: b.CPUs, Seconds: secs, BusyCores: busy / total * cores,
		StealCores: steal / total * cores, SelfCores: self / secs}
}
