package processes

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
)

// Platform runs each component as a process of this host: a detached
// supervisor (`lab serve`, Serve) starts them in dependency order, each in
// its own process group and cgroup, and records them in state.json under a
// flock. Its methods live beside the mechanism they drive: up.go,
// serve.go, limits_live.go.
type Platform struct{}

// Name is lab.PlatformProcesses.
func (Platform) Name() string { return lab.PlatformProcesses }

// SetLimits rewrites the components' cgroup limits in place.
func (Platform) SetLimits(_ context.Context, dir string, limits []lab.Limit) error {
	return setLimitsLive(dir, limits)
}

// Ready is the state of a lab whose supervisor is alive and ready.
func (Platform) Ready(_ context.Context, dir string) (*lab.State, error) { return ready(dir) }

func ready(dir string) (*lab.State, error) {
	s, err := lab.ReadState(dir)
	if err != nil {
		return nil, err
	}
	if !lock.Alive(dir) {
		return nil, fmt.Errorf("lab in %s: supervisor not running (last phase %s): %w", dir, s.Phase, lab.ErrNotRunning)
	}
	if s.Phase != lab.PhaseReady {
		return nil, fmt.Errorf("lab in %s is %s, not ready", dir, s.Phase)
	}
	return s, nil
}

// Status reads the lab's state and checks which recorded processes are
// still alive. A lab whose supervisor is gone reads as stopped.
func (Platform) Status(_ context.Context, dir string) (*lab.State, error) {
	s, err := lab.ReadState(dir)
	if err != nil {
		return nil, err
	}
	alive := lock.Alive(dir)
	if !alive && s.Phase != lab.PhaseFailed {
		s.Phase = lab.PhaseStopped
	}
	for i := range s.Components {
		c := &s.Components[i]
		switch {
		case lock.ProcessAlive(c.PID) && alive:
			if c.Status == "" || c.Status == lab.StatusExited {
				c.Status = lab.StatusRunning
			}
		case c.PID > 0:
			c.Status = lab.StatusExited
		}
	}
	return s, nil
}

// Serve runs the supervisor of the lab in dir in the calling process until
// ctx ends: what the background `lab serve` runs.
func Serve(ctx context.Context, dir string, out io.Writer) error { return serve(ctx, dir, out, nil) }

// applyLimits attaches each limit to the components it names: the exact
// component name, or else every component of that program ("http-echo").
func applyLimits(specs []*spec, limits []lab.Limit) error {
	for _, l := range limits {
		var hit []*spec
		for _, sp := range specs {
			if sp.Name == l.Component {
				hit = []*spec{sp}
				break
			}
			if sp.Program == l.Component {
				hit = append(hit, sp)
			}
		}
		if len(hit) == 0 {
			var names []string
			for _, sp := range specs {
				names = append(names, sp.Name)
			}
			sort.Strings(names)
			return fmt.Errorf("--limit %s: no such component in this lab; components: %s", l.Component, strings.Join(names, ", "))
		}
		for _, sp := range hit {
			sp.limit = l
			sp.Limit = l.String()
		}
	}
	return nil
}

// writeFileAtomic writes through the one atomic writer, so readers never
// see half a file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	return atomicfile.Write(path, data, mode)
}
