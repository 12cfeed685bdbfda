package observe

import (
	"fmt"
	"math"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
)

// cgroupReader reads a whole cgroup: its CPU counter, working set,
// throttling and limits, children of children included.
type cgroupReader struct{ g *cgroup.Group }

func (r *cgroupReader) read(now time.Time) (Point, error) {
	st, err := r.g.Stats()
	if err != nil {
		return Point{}, err
	}
	p := fromStats(unknownPoint(now), st)
	p.CPUSeconds = st.CPUUsage.Seconds()
	if _, ok := r.g.Dir("memory"); ok {
		p.MemBytes = float64(st.MemoryWorkingSet)
	}
	return p, nil
}

// fromStats copies a cgroup's throttling counters and limits into p.
func fromStats(p Point, st cgroup.Stats) Point {
	p.Periods, p.ThrottledPeriods = float64(st.Periods), float64(st.ThrottledPeriods)
	p.ThrottledSeconds = st.ThrottledTime.Seconds()
	p.CPULimit, p.MemLimit = st.CPULimit, float64(st.MemoryLimit)
	return p
}

// pidReader reads one process: CPU and RSS from /proc/PID/stat, throttling
// and the CPU limit from its cgroup when it has its own.
type pidReader struct {
	proc string
	pid  int
	g    *cgroup.Group
}

func (r *pidReader) read(now time.Time) (Point, error) {
	st, err := readStat(r.proc, r.pid)
	if err != nil {
		return Point{}, fmt.Errorf("pid %d: %w", r.pid, err)
	}
	p := unknownPoint(now)
	p.CPUSeconds, p.MemBytes = st.cpuSeconds, st.rssBytes
	p.CPULimit, p.MemLimit = 0, 0
	if r.g != nil {
		if cs, err := r.g.Stats(); err == nil {
			p = fromStats(p, cs)
		}
	}
	return p, nil
}

// nameReader sums every process running a program. Processes come and go,
// so it keeps its own CPU counter: the sum of each process's increase since
// it was first seen (processes started after the first search count from
// zero, so a short-lived worker is not lost).
type nameReader struct {
	proc   string
	name   string
	cg     cgroup.FS
	rescan int

	polls  int
	seeded bool
	last   map[int]float64 // pid -> CPU seconds at the previous poll
	cum    float64
	groups []*cgroup.Group
}

func (r *nameReader) read(now time.Time) (Point, error) {
	if r.polls%r.rescan == 0 {
		r.search()
	}
	r.polls++
	p := unknownPoint(now)
	var rss float64
	gone := false
	for pid, prev := range r.last {
		st, err := readStat(r.proc, pid)
		if err != nil {
			delete(r.last, pid)
			gone = true
			continue
		}
		r.cum += math.Max(0, st.cpuSeconds-prev)
		r.last[pid] = st.cpuSeconds
		rss += st.rssBytes
	}
	if gone {
		r.polls = 0 // search again next time
	}
	p.CPUSeconds, p.MemBytes = r.cum, rss
	p.CPULimit, p.MemLimit = 0, 0
	r.addGroups(&p)
	if len(r.last) == 0 {
		return p, fmt.Errorf("no process named %q", r.name)
	}
	return p, nil
}

// search finds the program's processes; new ones join with the CPU they
// had at the first search (already counted as the baseline) or zero later.
func (r *nameReader) search() {
	pids, err := findByName(r.proc, r.name)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	r.groups = r.groups[:0]
	for _, pid := range pids {
		if _, ok := r.last[pid]; !ok {
			start := 0.0
			if !r.seeded {
				if st, err := readStat(r.proc, pid); err == nil {
					start = st.cpuSeconds
				}
			}
			r.last[pid] = start
		}
		if g := throttleGroup(r.cg, pid); g != nil && !seen[g.Path()] {
			seen[g.Path()] = true
			r.groups = append(r.groups, g)
		}
	}
	r.seeded = true
}

// addGroups sums the throttling of the processes' distinct cgroups; the
// limit is the sum of theirs when every one has a limit (replicas of 50m
// each can use 50m apiece), else none.
func (r *nameReader) addGroups(p *Point) {
	if len(r.groups) == 0 {
		return
	}
	var per, thr, secs, limit float64
	limited := true
	for _, g := range r.groups {
		st, err := g.Stats()
		if err != nil {
			continue
		}
		per += float64(st.Periods)
		thr += float64(st.ThrottledPeriods)
		secs += st.ThrottledTime.Seconds()
		limit += st.CPULimit
		limited = limited && st.CPULimit > 0
	}
	p.Periods, p.ThrottledPeriods, p.ThrottledSeconds = per, thr, secs
	if limited {
		p.CPULimit = limit
	}
}
