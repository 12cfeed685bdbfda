package cgroup

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// v1Controllers are the hierarchies a v1 Group spans, in the order Path
// lists them.
var v1Controllers = []string{"cpu", "cpuacct", "memory"}

// unifiedKey is the key of the v2 entry ("0::/path") in a membership map.
const unifiedKey = ""

// parseProcCgroup reads the content of /proc/PID/cgroup into a map from
// controller name to cgroup path; the v2 entry is under unifiedKey. Lines
// look like "4:memory:/process_api/x", "1:cpu,cpuacct:/kubepods/..." or
// "0::/user.slice".
func parseProcCgroup(content string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(content), "\n") {
		if line == "" {
			continue
		}
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("line %d %q: want ID:CONTROLLERS:PATH", i+1, line)
		}
		p := path.Clean("/" + parts[2])
		if parts[1] == "" {
			out[unifiedKey] = p
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = p
		}
	}
	return out, nil
}

func (f FS) membership(pid int) (map[string]string, error) {
	file := filepath.Join(f.proc(), strconv.Itoa(pid), "cgroup")
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading cgroups of pid %d: %w", pid, err)
	}
	m, err := parseProcCgroup(string(b))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", file, err)
	}
	return m, nil
}

// self is the calling process's membership; Create nests under it.
func (f FS) self() (map[string]string, error) {
	if f.Proc == "" {
		return f.membershipFile("/proc/self/cgroup")
	}
	return f.membership(os.Getpid())
}

func (f FS) membershipFile(file string) (map[string]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading own cgroups: %w", err)
	}
	return parseProcCgroup(string(b))
}

// v1Mount finds the hierarchy of controller c: Root/c, or a co-mount such
// as Root/"cpu,cpuacct".
func (f FS) v1Mount(c string) (string, bool) {
	d := filepath.Join(f.root(), c)
	if exists(filepath.Join(d, "cgroup.procs")) {
		return d, true
	}
	entries, err := os.ReadDir(f.root())
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		for _, name := range strings.Split(e.Name(), ",") {
			d := filepath.Join(f.root(), e.Name())
			if name == c && exists(filepath.Join(d, "cgroup.procs")) {
				return d, true
			}
		}
	}
	return "", false
}
