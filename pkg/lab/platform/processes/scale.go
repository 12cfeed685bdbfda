package processes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/lab/internal/ports"
	"github.com/authbench/authbench/pkg/stacks"
)

// SetReplicas asks the lab's supervisor, which owns every process, to run
// the wanted replicas: it records them in lab.ScaleFile, wakes the
// supervisor with SIGHUP, and waits until state.json says it applied them.
func (Platform) SetReplicas(ctx context.Context, dir string, scales []stacks.Scale) error {
	dir, err := lab.AbsDir(dir)
	if err != nil {
		return err
	}
	gen, pid, err := requestScale(dir, scales)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return fmt.Errorf("scaling the lab: waking its supervisor (pid %d): %w", pid, err)
	}
	return waitScaled(ctx, dir, gen)
}

// requestScale checks the lab runs the components and writes the request
// under the state lock; it returns the request's generation and the
// supervisor's pid.
func requestScale(dir string, scales []stacks.Scale) (int, int, error) {
	unlock, err := lock.State(dir)
	if err != nil {
		return 0, 0, err
	}
	defer unlock()
	s, err := ready(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("scaling the lab: %w", err)
	}
	for _, sc := range scales {
		if _, ok := s.Component(sc.Component); !ok {
			return 0, 0, fmt.Errorf("scaling %s: the lab in %s does not run it (stacks %v)", sc.Component, dir, s.Stacks)
		}
	}
	req, err := lab.ReadScaleRequest(dir)
	if err != nil {
		return 0, 0, err
	}
	req.Merge(scales)
	return req.Generation, s.Supervisor, lab.WriteScaleRequest(dir, req)
}

// waitScaled polls state.json until the supervisor applied generation gen.
func waitScaled(ctx context.Context, dir string, gen int) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		s, err := lab.ReadState(dir)
		if err != nil {
			return err
		}
		if sc := s.Scaled; sc != nil && sc.Generation >= gen {
			if sc.Error != "" {
				return fmt.Errorf("scaling the lab: %s", sc.Error)
			}
			return nil
		}
		if !lock.Alive(dir) {
			return fmt.Errorf("scaling the lab: its supervisor stopped: %w", lab.ErrNotRunning)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("scaling the lab: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// rescale applies the lab's ScaleFile and records the outcome in the
// state: what the supervisor does on SIGHUP.
func (s *supervisor) rescale(ctx context.Context) {
	req, err := lab.ReadScaleRequest(s.dir)
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.ReadyTimeout)
		err = s.applyScale(ctx, req)
		cancel()
	}
	sc := &lab.Scaled{Generation: req.Generation, Replicas: req.Replicas}
	if err != nil {
		sc.Error = err.Error()
		s.logf("scaling: %v", err)
	}
	s.update(func(st *lab.State) { st.Scaled = sc })
}

// applyScale starts the missing replicas, points the layers in front at
// the new set (restarting them with their re-rendered configs), then stops
// the replicas no longer wanted.
func (s *supervisor) applyScale(ctx context.Context, req lab.ScaleRequest) error {
	names := make([]string, 0, len(req.Replicas))
	for n := range req.Replicas {
		names = append(names, n)
	}
	sort.Strings(names)
	fronts := map[string]bool{}
	var surplus []string
	for _, base := range names {
		front, ok := stacks.Scalable(base)
		if !ok || s.findSpec(base) == nil {
			return fmt.Errorf("%s is no scalable component of this lab", base)
		}
		have, want := s.b.replicaCount(base), req.Want(base)
		for i := have + 1; i <= want; i++ {
			if err := s.startReplica(ctx, base, i); err != nil {
				return err
			}
			s.b.replicas[base] = i
		}
		for i := have; i > want; i-- {
			surplus = append(surplus, stacks.ReplicaName(base, i))
		}
		if want != have {
			s.b.replicas[base] = want
			fronts[front.Name] = true
		}
	}
	for _, f := range sortedKeys(fronts) {
		if err := s.restart(ctx, f); err != nil {
			return err
		}
	}
	for _, name := range surplus {
		s.stopReplica(name)
	}
	return nil
}

// startReplica starts replica i of base with its own ports, cgroup,
// identity and log, under base's current limit, and waits until it serves.
func (s *supervisor) startReplica(ctx context.Context, base string, i int) error {
	name := stacks.ReplicaName(base, i)
	if err := s.allocate(portsOf(name)); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	sp, err := s.b.replica(base, name)
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	sp.Log, sp.ReplicaOf = s.b.path("logs", name+".log"), base
	s.mu.Lock()
	if c, ok := s.state.Component(base); ok {
		sp.limit, _ = lab.ParseLimit(name + "=" + c.Limit)
		sp.Limit = c.Limit
	}
	s.mu.Unlock()
	s.update(func(st *lab.State) {
		c := sp.ComponentInfo
		c.Status, c.Exe = lab.StatusStarting, sp.argv[0]
		st.AddReplica(base, c)
	})
	s.specs = append(s.specs, sp)
	if err := s.runOne(ctx, s.b, sp); err != nil {
		return err
	}
	s.watchNew(name)
	return nil
}

// restart points a layer in front at the current replicas, live: a
// gateway's Envoy (run with --disable-hot-restart) reloads its endpoints
// files, the route's HAProxy fills its server-template slots through its
// runtime API; neither restarts, so no request is dropped.
func (s *supervisor) restart(ctx context.Context, name string) error {
	var err error
	switch name {
	case stacks.Envoy, stacks.EnvoyOAuth:
		err = s.b.reroute(ctx, name)
	case stacks.HAProxy:
		err = s.b.reslot(ctx)
	default:
		err = fmt.Errorf("%s balances no replicas", name)
	}
	if err != nil {
		return fmt.Errorf("pointing %s at the new replicas: %w", name, err)
	}
	s.logf("%s now balances across %s", name, s.b.endpointsNote(name))
	return nil
}

// stopReplica stops a replica and forgets it.
func (s *supervisor) stopReplica(name string) {
	s.stopProc(name)
	var kept []*spec
	for _, sp := range s.specs {
		if sp.Name != name {
			kept = append(kept, sp)
		}
	}
	s.specs = kept
	s.update(func(st *lab.State) {
		var cs []lab.ComponentInfo
		for _, c := range st.Components {
			if c.Name != name {
				cs = append(cs, c)
			}
		}
		st.Components = cs
	})
	s.logf("%-16s stopped (scaled down)", name)
}

// stopProc stops a component's process; it is dropped from procs first,
// so that watch does not report its exit.
func (s *supervisor) stopProc(name string) {
	s.mu.Lock()
	p := s.procs[name]
	delete(s.procs, name)
	s.mu.Unlock()
	if p != nil {
		p.Stop(5 * time.Second)
	}
}

func (s *supervisor) watchNew(name string) {
	s.mu.Lock()
	p := s.procs[name]
	s.mu.Unlock()
	if p != nil {
		go s.watch(p)
	}
}

// allocate gives each new port name a free port and records it.
func (s *supervisor) allocate(names []string) error {
	used, err := ports.Allocate(names, nil, ports.Read(s.dir))
	if err != nil {
		return err
	}
	for n, p := range used {
		s.b.ports[n] = p
	}
	if b, err := json.MarshalIndent(s.b.ports, "", "  "); err == nil {
		_ = writeFileAtomic(filepath.Join(s.dir, ports.File), append(b, '\n'), 0o644)
	}
	s.update(func(st *lab.State) {
		for n, p := range used {
			st.Ports[n] = p
		}
	})
	return nil
}

func (s *supervisor) findSpec(name string) *spec {
	for _, sp := range s.specs {
		if sp.Name == name {
			return sp
		}
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// errNotScalable reports a component the builder has no replica maker for.
var errNotScalable = errors.New("no replica maker")
