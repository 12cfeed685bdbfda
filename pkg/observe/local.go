package observe

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/plan"
)

// RoleLoadGenerator is the role of authbench itself among the components.
const RoleLoadGenerator = "load-generator"

// LocalComponent is a process or cgroup on this machine. Exactly one of
// Cgroup, PID and Process selects it; when several are set (a lab component
// records both its pid and its cgroup), Cgroup wins, then PID, because a
// cgroup also counts the children the process forks.
type LocalComponent struct {
	Name string
	Role string
	// Cgroup is a path cgroup.Open accepts.
	Cgroup string
	PID    int
	// Process is a program name; every process running it is summed.
	Process string
}

// Self is authbench itself, the load generator.
func Self() LocalComponent {
	return LocalComponent{Name: "authbench", Role: RoleLoadGenerator, PID: os.Getpid()}
}

// FromPlan returns the plan's components that name something local (a pid,
// a process or a cgroup); Kubernetes containers are left to Prometheus.
func FromPlan(cs []plan.Component) []LocalComponent {
	var out []LocalComponent
	for _, c := range cs {
		if c.PID != 0 || c.Process != "" || c.Cgroup != "" {
			out = append(out, LocalComponent{Name: c.Name, Role: c.Role, Cgroup: c.Cgroup, PID: c.PID, Process: c.Process})
		}
	}
	return out
}

// LocalOptions configure a LocalSampler. The zero value reads the real
// system.
type LocalOptions struct {
	// Cgroups locates the cgroup filesystem. Default cgroup.Default.
	Cgroups cgroup.FS
	// Proc is the proc filesystem. Default "/proc".
	Proc string
	// Rescan is how many polls pass between searches of /proc for a
	// Process component's processes (sooner when one exits). Default 5.
	Rescan int
}

// LocalSampler reads /proc and cgroup files: per component a handful of
// small files per poll, cheap enough to run beside the load generator.
type LocalSampler struct {
	comps   []Component
	readers []reader
}

// reader reads one component.
type reader interface {
	read(now time.Time) (Point, error)
}

// NewLocal prepares a sampler for comps. It fails on a component without a
// name or selector, a pid that does not exist, or a cgroup it cannot open.
func NewLocal(comps []LocalComponent, o LocalOptions) (*LocalSampler, error) {
	if o.Proc == "" {
		o.Proc = "/proc"
	}
	if o.Rescan <= 0 {
		o.Rescan = 5
	}
	s := &LocalSampler{}
	for _, c := range comps {
		r, err := newReader(c, o)
		if err != nil {
			return nil, fmt.Errorf("sampling component %q: %w", c.Name, err)
		}
		s.comps = append(s.comps, Component{Name: c.Name, Role: c.Role})
		s.readers = append(s.readers, r)
	}
	return s, nil
}

func newReader(c LocalComponent, o LocalOptions) (reader, error) {
	switch {
	case c.Name == "":
		return nil, errors.New("no name")
	case c.Cgroup != "":
		g, err := o.Cgroups.Open(c.Cgroup)
		if err != nil {
			return nil, err
		}
		return &cgroupReader{g: g}, nil
	case c.PID > 0:
		if _, err := readStat(o.Proc, c.PID); err != nil {
			return nil, fmt.Errorf("reading pid %d: %w", c.PID, err)
		}
		return &pidReader{proc: o.Proc, pid: c.PID, g: throttleGroup(o.Cgroups, c.PID)}, nil
	case c.Process != "":
		return &nameReader{proc: o.Proc, name: c.Process, cg: o.Cgroups, rescan: o.Rescan, last: map[int]float64{}}, nil
	}
	return nil, errors.New("none of cgroup, pid, process is set")
}

// throttleGroup is the cgroup whose cpu.stat and quota apply to pid, or nil
// when it sits at the root of the cpu hierarchy (no quota to throttle it).
func throttleGroup(fs cgroup.FS, pid int) *cgroup.Group {
	g, err := fs.ForPID(pid)
	if err != nil || g.IsRootOf("cpu") {
		return nil
	}
	return g
}

// Source returns SourceLocal.
func (s *LocalSampler) Source() string { return SourceLocal }

// Components lists the sampled components.
func (s *LocalSampler) Components() []Component { return s.comps }

// Poll reads every component once.
func (s *LocalSampler) Poll(now time.Time) ([]Point, error) {
	out := make([]Point, len(s.readers))
	var errs []error
	for i, r := range s.readers {
		p, err := r.read(now)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.comps[i].Name, err))
		}
		out[i] = p
	}
	return out, errors.Join(errs...)
}
