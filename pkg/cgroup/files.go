package cgroup

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// writeFile writes one value the way cgroupfs wants it: a single write
// without truncation games, so that the kernel sees exactly one value.
func writeFile(file, value string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(value); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readInt reads a file holding one integer, such as cpuacct.usage.
func readInt(file string) (int64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parsing %s: %w", file, err)
	}
	return n, nil
}

// readKeyed reads a flat keyed file ("key value" per line) such as cpu.stat
// or memory.stat. Values that are not integers are skipped.
func readKeyed(file string) (map[string]int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int64{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			out[k] = n
		}
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return out, nil
}
