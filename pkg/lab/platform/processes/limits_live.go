package processes

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
)

// setLimitsLive changes CPU and memory limits of the running lab in dir in
// place: each named component's cgroup gets its new CFS quota and memory
// limit while it runs, so the next measurement is a what-if without a
// restart. Each limit replaces the component's whole limit: "50m" also
// lifts a memory limit it had, and a lab.Limit with neither CPU nor memory
// lifts both. A name matches a component, or else every component of that
// program ("http-echo"). state.json records the new limits, so `lab status`
// and run.json's lab record show them; the sampler reads the limit from the
// cgroup itself. They last until the lab stops: the next `lab up` applies
// only its own --limit flags.
func setLimitsLive(dir string, limits []lab.Limit) error {
	return setLimits(dir, limits, cgroup.Default)
}

// setLimits is setLimitsLive on the cgroup filesystem fs.
func setLimits(dir string, limits []lab.Limit, fs cgroup.FS) error {
	if len(limits) == 0 {
		return fmt.Errorf("setting lab limits: none given; want COMPONENT=CPU[,MEM] or COMPONENT=%s", lab.NoLimit)
	}
	dir, err := lab.AbsDir(dir)
	if err != nil {
		return err
	}
	unlock, err := lock.State(dir)
	if err != nil {
		return err
	}
	defer unlock()
	// Read under the lock: the supervisor writes state.json under it too.
	s, err := ready(dir)
	if err != nil {
		return fmt.Errorf("setting lab limits: %w", err)
	}
	targets, err := limitTargets(s, limits)
	if err != nil {
		return err
	}
	var errs []error
	changed := false
	for _, t := range targets {
		c := &s.Components[t.index]
		now, err := applyLiveLimit(fs, *c, t.limit)
		if now.String() != c.Limit {
			c.Limit, changed = now.String(), true
		}
		if err != nil {
			errs = append(errs, err)
			break // leave the rest as they were
		}
	}
	if changed {
		if err := lab.WriteState(dir, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// limitTarget is one component a limit applies to.
type limitTarget struct {
	index int // in lab.State.Components
	limit lab.Limit
}

// limitTargets resolves each limit to components, as applyLimits does at
// start, and checks that each has a cgroup and is named only once.
func limitTargets(s *lab.State, limits []lab.Limit) ([]limitTarget, error) {
	var out []limitTarget
	by := map[int]string{}
	for _, l := range limits {
		hit := matchComponents(s.Components, l.Component)
		if len(hit) == 0 {
			return nil, fmt.Errorf("limit %s: no such component in the lab in %s; components: %s",
				l.Component, s.Dir, strings.Join(componentNames(s.Components), ", "))
		}
		for _, i := range hit {
			c := s.Components[i]
			if prev, dup := by[i]; dup {
				return nil, fmt.Errorf("limits %s and %s both name %s", prev, l.Component, c.Name)
			}
			by[i] = l.Component
			if c.Cgroup == "" {
				return nil, fmt.Errorf("limit %s: %s has no cgroup (cgroups: %s)", l.Component, c.Name, s.Cgroups)
			}
			out = append(out, limitTarget{index: i, limit: lab.Limit{Component: c.Name, MilliCPU: l.MilliCPU, MemoryBytes: l.MemoryBytes}})
		}
	}
	return out, nil
}

// matchComponents returns the index of the component named name and of
// its replicas (`lab scale`: a limit is per replica), or else those of
// every component running that program.
func matchComponents(cs []lab.ComponentInfo, name string) []int {
	var hit, named []int
	for i, c := range cs {
		if c.Name == name || (c.ReplicaOf != "" && c.ReplicaOf == name) {
			named = append(named, i)
		}
		if c.Program == name {
			hit = append(hit, i)
		}
	}
	if len(named) > 0 {
		return named
	}
	return hit
}

func componentNames(cs []lab.ComponentInfo) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	sort.Strings(names)
	return names
}

// applyLiveLimit writes l into c's cgroup and returns the limit now in
// force, which differs from l when a write failed. Memory goes first: a
// limit below the current use is the write the kernel may refuse (v1
// answers EBUSY when it cannot reclaim), and the CPU quota is then left alone.
func applyLiveLimit(fs cgroup.FS, c lab.ComponentInfo, l lab.Limit) (lab.Limit, error) {
	now, _ := lab.ParseLimit(c.Name + "=" + c.Limit) // what start or an earlier call recorded
	now.Component = c.Name
	g, err := fs.Open(c.Cgroup)
	if err != nil {
		return now, fmt.Errorf("limiting %s: %w", c.Name, err)
	}
	if _, ok := g.Dir("memory"); ok || l.MemoryBytes > 0 {
		if err := g.SetMemoryLimit(l.MemoryBytes); err != nil {
			return now, fmt.Errorf("limiting %s: %w", c.Name, err)
		}
	}
	now.MemoryBytes = l.MemoryBytes
	if err := g.SetCPULimit(l.MilliCPU); err != nil {
		return now, fmt.Errorf("limiting %s: %w", c.Name, err)
	}
	now.MilliCPU = l.MilliCPU
	return now, nil
}

// keepLiveLimits copies into s, the supervisor's own state, the limits
// that SetLimits recorded in dir's state.json since, so that the
// supervisor's next write does not undo them. The caller holds lockState.
func keepLiveLimits(dir string, s *lab.State) {
	disk, err := lab.ReadState(dir)
	if err != nil || disk.Supervisor != s.Supervisor || !disk.Started.Equal(s.Started) {
		return // not this supervisor's state yet
	}
	for i := range s.Components {
		if c, ok := disk.Component(s.Components[i].Name); ok {
			s.Components[i].Limit = c.Limit
		}
	}
}
