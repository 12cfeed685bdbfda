package processes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/ports"
	"github.com/authbench/authbench/pkg/lab/internal/proc"
)

// runGraph starts each spec once its dependencies are ready; the first
// failure cancels the rest.
func (s *supervisor) runGraph(ctx context.Context, b *builder, specs []*spec) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := map[string]chan struct{}{}
	for _, sp := range specs {
		ready[sp.Name] = make(chan struct{})
	}
	for _, sp := range specs {
		for _, d := range sp.after {
			if ready[d] == nil {
				return fmt.Errorf("%s needs %s, which this lab does not run", sp.Name, d)
			}
		}
	}
	var (
		wg       sync.WaitGroup
		firstErr error
		errOnce  sync.Once
	)
	for _, sp := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, d := range sp.after {
				select {
				case <-ready[d]:
				case <-ctx.Done():
					return
				}
			}
			if err := s.runOne(ctx, b, sp); err != nil {
				errOnce.Do(func() { firstErr = err; cancel() })
				return
			}
			close(ready[sp.Name])
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("starting the lab: %w", context.Cause(ctx))
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			firstErr = fmt.Errorf("lab not ready within %s", s.cfg.ReadyTimeout)
		}
	}
	return firstErr
}

// runOne starts one component and waits until it is ready and set up.
func (s *supervisor) runOne(ctx context.Context, b *builder, sp *spec) error {
	t0 := time.Now()
	for _, pn := range sp.ports {
		if err := ports.CheckFree(b.ports[pn]); err != nil {
			return fmt.Errorf("starting %s: %w (another program holds it; pin another with --port %s=PORT)", sp.Name, err, pn)
		}
	}
	if sp.prepare != nil {
		if err := sp.prepare(); err != nil {
			return fmt.Errorf("preparing %s: %w", sp.Name, err)
		}
	}
	ps := proc.Spec{Name: sp.Name, Argv: sp.argv, Env: sp.env, ExactEnv: sp.exactEnv, Dir: s.dir, LogPath: sp.Log,
		MilliCPU: sp.limit.MilliCPU, MemoryBytes: sp.limit.MemoryBytes}
	if sp.limit.MemoryBytes > 0 {
		ps.Memory = lab.Limit{MemoryBytes: sp.limit.MemoryBytes}.String()
	}
	if s.cgroups {
		ps.Cgroup = s.cgroupRel(sp.Name)
	}
	p, err := proc.Start(ps)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.procs[sp.Name] = p
	s.mu.Unlock()
	s.setComponent(sp.Name, func(c *lab.ComponentInfo) { c.PID, c.Cgroup = p.PID(), p.Cgroup() })
	if err := p.WaitReady(ctx, sp.ready); err != nil {
		return err
	}
	if sp.setup != nil {
		if err := sp.setup(ctx); err != nil {
			return fmt.Errorf("setting up %s: %w", sp.Name, err)
		}
	}
	d := time.Since(t0).Seconds()
	s.setComponent(sp.Name, func(c *lab.ComponentInfo) { c.Status, c.StartupS = lab.StatusRunning, round(d, 2) })
	s.logf("%-16s ready in %5.1fs  pid %-7d %s", sp.Name, d, p.PID(), sp.URL)
	return nil
}

// watch records a component that exits while the lab runs.
func (s *supervisor) watch(p *proc.Proc) {
	<-p.Done()
	s.mu.Lock()
	current := s.procs[p.Name()] == p
	s.mu.Unlock()
	if s.stopping.Load() || !current {
		return // stopped on purpose: the lab's end, or `lab scale`
	}
	s.logf("%s exited unexpectedly (%v); last lines of %s:\n%s", p.Name(), p.WaitErr(), p.LogPath(), proc.Tail(p.LogPath(), proc.TailLines))
	s.setComponent(p.Name(), func(c *lab.ComponentInfo) { c.Status = lab.StatusExited })
}

// stopAll stops every started component in parallel: SIGTERM to its
// process group, SIGKILL after its grace, then its cgroup is killed and
// removed so that no child of a child survives.
func (s *supervisor) stopAll() {
	s.stopping.Store(true)
	s.mu.Lock()
	procs := make([]*proc.Proc, 0, len(s.procs))
	for _, p := range s.procs {
		procs = append(procs, p)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Stop(5 * time.Second)
		}()
	}
	wg.Wait()
	if s.cgroups {
		if g, err := cgroup.Open(s.cgroupParent()); err == nil {
			_ = g.Remove()
		}
		if g, err := cgroup.Open(cgroupRoot); err == nil {
			g.RemoveIfUnused()
		}
	}
	for _, p := range procs {
		s.setComponent(p.Name(), func(c *lab.ComponentInfo) { c.Status = lab.StatusExited })
	}
}

// killLeftovers kills what a previous supervisor of this dir left running
// (it was SIGKILLed: its components died with it, but not their children,
// such as Keycloak's java under kc.sh), so their ports are free again.
func (s *supervisor) killLeftovers() int {
	n := cleanupLeftovers(s.dir)
	if g, err := cgroup.Open(s.cgroupParent()); err == nil {
		if pids, _ := g.PIDs(); len(pids) > 0 {
			n += len(pids)
			_ = g.Remove()
		}
	}
	return n
}

// cgroupRoot holds every lab's group.
const cgroupRoot = "authbench"

// cgroupParent is this lab's group, unique per lab dir.
func (s *supervisor) cgroupParent() string {
	h := sha256.Sum256([]byte(s.dir))
	return cgroupRoot + "/lab-" + hex.EncodeToString(h[:4])
}

func (s *supervisor) cgroupRel(name string) string { return s.cgroupParent() + "/" + name }

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}
