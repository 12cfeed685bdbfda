package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// unlimitedMem is the smallest v1 memory.limit_in_bytes that means "no
// limit": the kernel reports 2^63-1 rounded down to a page.
const unlimitedMem = int64(1) << 62

// Stats is one reading of a group. Counters are cumulative since the group
// was created; a sampler takes differences.
type Stats struct {
	// CPUUsage is CPU time used by the group (v1 cpuacct.usage, v2 cpu.stat
	// usage_usec).
	CPUUsage time.Duration
	// Periods and ThrottledPeriods count CFS periods with the group runnable,
	// and those in which it hit its quota (nr_periods, nr_throttled).
	Periods          int64
	ThrottledPeriods int64
	// ThrottledTime is how long the group's threads waited for quota
	// (v1 throttled_time, v2 throttled_usec).
	ThrottledTime time.Duration
	// MemoryUsage is the raw charge, page cache included (v1
	// memory.usage_in_bytes, v2 memory.current).
	MemoryUsage int64
	// MemoryWorkingSet is usage minus inactive file pages, as kubelet and
	// cAdvisor compute container_memory_working_set_bytes.
	MemoryWorkingSet int64
	// CPULimit is quota/period in cores; 0 means no limit.
	CPULimit float64
	// MemoryLimit in bytes; 0 means no limit.
	MemoryLimit int64
}

// Stats reads the group's CPU, throttling and memory counters and limits.
// Controllers the group lacks are left zero; it fails only when nothing at
// all could be read.
func (g *Group) Stats() (Stats, error) {
	var s Stats
	var errs []error
	if g.version == V2 {
		errs = g.statsV2(&s)
	} else {
		errs = g.statsV1(&s)
	}
	if len(errs) > 0 && len(errs) >= g.readCount() {
		return s, fmt.Errorf("reading stats of cgroup %s: %w", g.Path(), errors.Join(errs...))
	}
	return s, nil
}

// readCount is how many independent reads Stats attempts, so that it can
// tell partial from total failure.
func (g *Group) readCount() int {
	if g.version == V2 {
		return 2
	}
	return 3
}

func (g *Group) statsV1(s *Stats) []error {
	var errs []error
	if d, ok := g.Dir("cpuacct"); ok {
		if n, err := readInt(filepath.Join(d, "cpuacct.usage")); err == nil {
			s.CPUUsage = time.Duration(n)
		} else {
			errs = append(errs, err)
		}
	} else {
		errs = append(errs, errors.New("no cpuacct hierarchy"))
	}
	if d, ok := g.Dir("cpu"); ok {
		if st, err := readKeyed(filepath.Join(d, "cpu.stat")); err == nil {
			s.Periods, s.ThrottledPeriods = st["nr_periods"], st["nr_throttled"]
			s.ThrottledTime = time.Duration(st["throttled_time"])
		} else {
			errs = append(errs, err)
		}
		q, qerr := readInt(filepath.Join(d, "cpu.cfs_quota_us"))
		p, perr := readInt(filepath.Join(d, "cpu.cfs_period_us"))
		if qerr == nil && perr == nil && q > 0 && p > 0 {
			s.CPULimit = float64(q) / float64(p)
		}
	} else {
		errs = append(errs, errors.New("no cpu hierarchy"))
	}
	if err := g.memoryV1(s); err != nil {
		errs = append(errs, err)
	}
	return errs
}

func (g *Group) memoryV1(s *Stats) error {
	d, ok := g.Dir("memory")
	if !ok {
		return errors.New("no memory hierarchy")
	}
	u, err := readInt(filepath.Join(d, "memory.usage_in_bytes"))
	if err != nil {
		return err
	}
	s.MemoryUsage = u
	ms, _ := readKeyed(filepath.Join(d, "memory.stat"))
	inactive, ok := ms["total_inactive_file"]
	if !ok {
		inactive = ms["inactive_file"]
	}
	s.MemoryWorkingSet = workingSet(u, inactive)
	if l, err := readInt(filepath.Join(d, "memory.limit_in_bytes")); err == nil && l < unlimitedMem {
		s.MemoryLimit = l
	}
	return nil
}

func (g *Group) statsV2(s *Stats) []error {
	d := g.dirs[unifiedKey]
	var errs []error
	if st, err := readKeyed(filepath.Join(d, "cpu.stat")); err == nil {
		s.CPUUsage = time.Duration(st["usage_usec"]) * time.Microsecond
		s.Periods, s.ThrottledPeriods = st["nr_periods"], st["nr_throttled"]
		s.ThrottledTime = time.Duration(st["throttled_usec"]) * time.Microsecond
	} else {
		errs = append(errs, err)
	}
	if b, err := os.ReadFile(filepath.Join(d, "cpu.max")); err == nil {
		s.CPULimit = parseCPUMax(string(b))
	}
	if u, err := readInt(filepath.Join(d, "memory.current")); err == nil {
		s.MemoryUsage = u
		ms, _ := readKeyed(filepath.Join(d, "memory.stat"))
		s.MemoryWorkingSet = workingSet(u, ms["inactive_file"])
	} else {
		errs = append(errs, err)
	}
	if b, err := os.ReadFile(filepath.Join(d, "memory.max")); err == nil {
		if v := strings.TrimSpace(string(b)); v != "max" {
			fmt.Sscan(v, &s.MemoryLimit)
		}
	}
	return errs
}

func workingSet(usage, inactiveFile int64) int64 {
	if inactiveFile > usage {
		return 0
	}
	return usage - inactiveFile
}
