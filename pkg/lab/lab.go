package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// Lab is one lab directory and the platform its components run on: the
// only way callers start, stop, inspect or limit a lab. How the platform
// does it (supervisor, state file, locks, ports) is behind it.
type Lab struct {
	dir       string
	platform  Platform
	platforms []Platform
	// err is why Open could not resolve the lab; every method returns it.
	err error
}

// Platform is where a lab's components run. Every platform keeps the same
// lab directory layout (request.json, state.json, scenario.yaml, certs/,
// tokens/, logs/) and the same component names (pkg/stacks), so that
// everything above the Lab handle works the same on each.
type Platform interface {
	// Name is the platform's name for `lab up --platform`.
	Name() string
	// Up starts the lab in dir and returns its state once every component
	// is ready; see Lab.Up.
	Up(ctx context.Context, dir string, o UpOptions) (*State, error)
	// Down stops the lab in dir; stopping a stopped lab succeeds.
	Down(ctx context.Context, dir string, out io.Writer) error
	// Status is the lab's state with live statuses, whatever its phase.
	Status(ctx context.Context, dir string) (*State, error)
	// Ready is the state of a lab that runs and is ready, or an error
	// (wrapping ErrNotRunning when none runs).
	Ready(ctx context.Context, dir string) (*State, error)
	// SetLimits replaces the named components' limits while they run.
	SetLimits(ctx context.Context, dir string, limits []Limit) error
	// SetFault replaces the fault on every proxy of f.Link with f, a
	// validated fault (its For is the caller's: the platform sets the
	// fault until cleared). ErrNoFaultProxy when the lab has no proxy on
	// the link.
	SetFault(ctx context.Context, dir string, f Fault) error
	// ClearFault removes every fault from link's proxies; clearing a link
	// without a fault succeeds. ErrNoFaultProxy as SetFault.
	ClearFault(ctx context.Context, dir, link string) error
	// Faults lists the faults in force, as the fault proxy reports them:
	// one per link that has one, in Links order, For zero.
	Faults(ctx context.Context, dir string) ([]Fault, error)
}

// Platform names.
const (
	// PlatformProcesses runs each component as a process on this host,
	// in its own process group and cgroup. The default.
	PlatformProcesses = "processes"
	// PlatformKube runs the components as pods of a single-node Kubernetes.
	PlatformKube = "kube"
)

// ErrPlatformUnavailable reports a platform the lab was not given.
var ErrPlatformUnavailable = errors.New("lab platform not available")

// KnownPlatforms are the platform names `lab up --platform` accepts.
func KnownPlatforms() []string { return []string{PlatformProcesses, PlatformKube} }

// find returns the named platform (default PlatformProcesses) among ps.
func find(ps []Platform, name string) (Platform, error) {
	if name == "" {
		name = PlatformProcesses
	}
	for _, p := range ps {
		if p.Name() == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	return nil, fmt.Errorf("%w: platform %q; this program runs %s", ErrPlatformUnavailable, name, strings.Join(names, ", "))
}

// Open returns the lab in dir (default DefaultDir()), on the platform its
// last `lab up` asked for (processes when none did), among the platforms
// the caller gives: the program's composition root builds them. It does
// not need a running lab; an error resolving it (an unusable dir, a
// platform not given) is returned by each method, so that callers chain
// lab.Open(dir, ps...).Status(ctx).
func Open(dir string, platforms ...Platform) *Lab {
	l := &Lab{dir: dir, platforms: platforms}
	abs, err := AbsDir(dir)
	if err != nil {
		l.err = err
		return l
	}
	l.dir = abs
	name := PlatformProcesses
	if c, err := readRequestRaw(abs); err == nil && c.Platform != "" {
		name = c.Platform
	}
	if l.platform, err = find(platforms, name); err != nil {
		l.err = fmt.Errorf("opening the lab in %s: %w", abs, err)
	}
	return l
}

// resolveErr is Open's error, except a platform the lab last ran on that
// was not given: Up may start it on another.
func (l *Lab) resolveErr() error {
	if errors.Is(l.err, ErrPlatformUnavailable) {
		return nil
	}
	return l.err
}

// Dir is the lab's absolute directory.
func (l *Lab) Dir() string { return l.dir }

// Platform is the name of the platform the lab runs on ("" when it was
// not given to Open).
func (l *Lab) Platform() string {
	if l.platform == nil {
		return ""
	}
	return l.platform.Name()
}

// Up starts the lab on o.Config.Platform (default: processes) and returns
// its state once every component is ready. In the background mode (the
// default) the lab keeps running after Up returns; Ctrl-C (ctx) before
// ready stops everything. A failing component fails Up with its log tail.
func (l *Lab) Up(ctx context.Context, o UpOptions) (*State, error) {
	if err := l.resolveErr(); err != nil {
		return nil, err
	}
	p, err := find(l.platforms, o.Config.Platform)
	if err != nil {
		return nil, err
	}
	l.platform = p
	o.Config.Platform = p.Name()
	s, err := p.Up(ctx, l.dir, o)
	if err != nil || s == nil {
		return s, err
	}
	return l.withFaults(ctx, s), nil
}

// Down stops the lab and everything it started. Down on a stopped lab
// says so (to out, default nowhere) and succeeds.
func (l *Lab) Down(ctx context.Context, out io.Writer) error {
	if l.err != nil {
		return l.err
	}
	if out == nil {
		out = io.Discard
	}
	return l.platform.Down(ctx, l.dir, out)
}

// Status is the lab's state with live statuses and, for a ready lab, the
// faults in force; a lab that is not running reads as stopped (or
// failed). It fails only when no lab ever ran in dir.
func (l *Lab) Status(ctx context.Context) (*State, error) {
	if l.err != nil {
		return nil, l.err
	}
	s, err := l.platform.Status(ctx, l.dir)
	if err != nil {
		return nil, err
	}
	return l.withFaults(ctx, s), nil
}

// withFaults fills a ready lab's state with the faults in force, or why
// they could not be read.
func (l *Lab) withFaults(ctx context.Context, s *State) *State {
	if s.Phase != PhaseReady || len(s.Links) == 0 {
		return s
	}
	var err error
	if s.Faults, err = l.Faults(ctx); err != nil {
		s.FaultsError = err.Error()
	}
	return s
}

// State is the state of the running, ready lab; an error wrapping
// ErrNotRunning when no lab runs.
func (l *Lab) State(ctx context.Context) (*State, error) {
	if l.err != nil {
		return nil, l.err
	}
	return l.platform.Ready(ctx, l.dir)
}

// Components lists the running lab's components with pid, cgroup, role,
// version, URL and limit, for the sampler.
func (l *Lab) Components(ctx context.Context) ([]ComponentInfo, error) {
	s, err := l.State(ctx)
	if err != nil {
		return nil, err
	}
	return s.Components, nil
}

// Record describes the running lab for run.json: which real component
// plays which role.
func (l *Lab) Record(ctx context.Context) (*results.Lab, error) {
	s, err := l.State(ctx)
	if err != nil {
		return nil, err
	}
	return s.Record(), nil
}

// SetLimit replaces components' CPU and memory limits while the lab runs
// (a Limit without CPU and memory lifts them). A program name limits every
// component running it.
func (l *Lab) SetLimit(ctx context.Context, limits ...Limit) error {
	if l.err != nil {
		return l.err
	}
	return l.platform.SetLimits(ctx, l.dir, limits)
}

// Scenario returns a scenario YAML for the running lab: one target per
// stack with its layers, rungs and token source (secrets by file), and the
// lab directory, so that a run of it observes this lab.
func (l *Lab) Scenario(ctx context.Context) ([]byte, error) {
	s, err := l.State(ctx)
	if err != nil {
		return nil, err
	}
	return ScenarioYAML(s)
}

// DefaultDir is the lab directory when --lab-dir is not given:
// the user cache's authbench/lab (~/.cache/authbench/lab).
func DefaultDir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "authbench-lab")
	}
	return filepath.Join(cache, "authbench", "lab")
}
