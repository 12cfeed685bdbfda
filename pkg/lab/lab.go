package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/authbench/authbench/pkg/results"
)

// Lab is one lab directory and the platform its components run on: the
// only way callers start, stop, inspect or limit a lab. How the platform
// does it (supervisor, state file, locks, ports) is behind it.
type Lab struct {
	dir      string
	platform Platform
	// err is why Open could not resolve the lab; every method returns it.
	err error
}

// Platform is where a lab's components run. Every platform keeps the same
// lab directory layout (request.json, state.json, scenario.yaml, certs/,
// tokens/, logs/) and the same component names, so that everything above
// the Lab handle works the same on each.
type Platform interface {
	// Name is the platform's name for `lab up --platform`.
	Name() string
	// Up starts the lab in dir and returns its state once every component
	// is ready; see Lab.Up.
	Up(ctx context.Context, dir string, o UpOptions) (*State, error)
	// Down stops the lab in dir; stopping a stopped lab succeeds.
	Down(ctx context.Context, dir string, out io.Writer) error
	// Status is the lab's state with live statuses, whatever its phase.
	Status(dir string) (*State, error)
	// Ready is the state of a lab that runs and is ready, or an error
	// (wrapping ErrNotRunning when none runs).
	Ready(dir string) (*State, error)
	// SetLimits replaces the named components' limits while they run.
	SetLimits(dir string, limits []Limit) error
}

// Platform names.
const (
	// PlatformProcesses runs each component as a process on this host,
	// in its own process group and cgroup. The default.
	PlatformProcesses = "processes"
	// PlatformKube runs the components as pods of a single-node Kubernetes.
	PlatformKube = "kube"
)

// ErrPlatformUnavailable reports a platform this build cannot run.
var ErrPlatformUnavailable = errors.New("lab platform not available")

var (
	platformsMu sync.Mutex
	platforms   = map[string]Platform{PlatformProcesses: processes{}}
)

// RegisterPlatform makes a platform available to Open and `lab up
// --platform`, replacing one of the same name. A platform package calls it
// from an init function; the command that links the package enables it.
func RegisterPlatform(p Platform) {
	platformsMu.Lock()
	defer platformsMu.Unlock()
	platforms[p.Name()] = p
}

// Platforms lists the registered platforms' names, sorted.
func Platforms() []string {
	platformsMu.Lock()
	defer platformsMu.Unlock()
	names := make([]string, 0, len(platforms))
	for n := range platforms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// KnownPlatforms are the platform names `lab up --platform` accepts, also
// those this build cannot run yet.
func KnownPlatforms() []string { return []string{PlatformProcesses, PlatformKube} }

func platform(name string) (Platform, error) {
	if name == "" {
		name = PlatformProcesses
	}
	platformsMu.Lock()
	p, ok := platforms[name]
	platformsMu.Unlock()
	if ok {
		return p, nil
	}
	if name == PlatformKube {
		return nil, fmt.Errorf("%w: %s is not available yet; use --platform %s", ErrPlatformUnavailable, name, PlatformProcesses)
	}
	return nil, fmt.Errorf("%w: unknown platform %q; want %s", ErrPlatformUnavailable, name, strings.Join(KnownPlatforms(), " or "))
}

// Open returns the lab in dir (default DefaultDir()), on the platform its
// last `lab up` asked for (processes when none did). It does not need a
// running lab; an error resolving it (an unusable dir, a platform this
// build lacks) is returned by each method, so that callers chain
// lab.Open(dir).Status().
func Open(dir string) *Lab {
	abs, err := absDir(dir)
	if err != nil {
		return &Lab{dir: dir, platform: processes{}, err: err}
	}
	name := PlatformProcesses
	if c, err := readRequestRaw(abs); err == nil && c.Platform != "" {
		name = c.Platform
	}
	p, err := platform(name)
	if err != nil {
		return &Lab{dir: abs, platform: processes{}, err: fmt.Errorf("opening the lab in %s: %w", abs, err)}
	}
	return &Lab{dir: abs, platform: p}
}

// resolveErr is Open's error, except a platform the lab last ran on that
// this build lacks: Up may start it on another.
func (l *Lab) resolveErr() error {
	if errors.Is(l.err, ErrPlatformUnavailable) {
		return nil
	}
	return l.err
}

// Dir is the lab's absolute directory.
func (l *Lab) Dir() string { return l.dir }

// Platform is the name of the platform the lab runs on.
func (l *Lab) Platform() string { return l.platform.Name() }

// Up starts the lab on o.Config.Platform (default: processes) and returns
// its state once every component is ready. In the background mode (the
// default) the lab keeps running after Up returns; Ctrl-C (ctx) before
// ready stops everything. A failing component fails Up with its log tail.
func (l *Lab) Up(ctx context.Context, o UpOptions) (*State, error) {
	if err := l.resolveErr(); err != nil {
		return nil, err
	}
	p, err := platform(o.Config.Platform)
	if err != nil {
		return nil, err
	}
	l.platform = p
	o.Config.Platform = p.Name()
	return p.Up(ctx, l.dir, o)
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

// Status is the lab's state with live statuses; a lab that is not running
// reads as stopped (or failed). It fails only when no lab ever ran in dir.
func (l *Lab) Status() (*State, error) {
	if l.err != nil {
		return nil, l.err
	}
	return l.platform.Status(l.dir)
}

// State is the state of the running, ready lab; an error wrapping
// ErrNotRunning when no lab runs.
func (l *Lab) State() (*State, error) {
	if l.err != nil {
		return nil, l.err
	}
	return l.platform.Ready(l.dir)
}

// Components lists the running lab's components with pid, cgroup, role,
// version, URL and limit, for the sampler.
func (l *Lab) Components() ([]ComponentInfo, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return s.Components, nil
}

// Record describes the running lab for run.json: which real component
// plays which role.
func (l *Lab) Record() (*results.Lab, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return s.Record(), nil
}

// SetLimit replaces components' CPU and memory limits while the lab runs
// (a Limit without CPU and memory lifts them). A program name limits every
// component running it.
func (l *Lab) SetLimit(limits ...Limit) error {
	if l.err != nil {
		return l.err
	}
	return l.platform.SetLimits(l.dir, limits)
}

// Scenario returns a scenario YAML for the running lab: one target per
// stack with its layers, rungs and token source (secrets by file), and the
// lab directory, so that a run of it observes this lab.
func (l *Lab) Scenario() ([]byte, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	return scenarioYAML(s)
}

// Serve runs the lab's supervisor in the calling process until ctx ends:
// what the background `lab serve` does for the processes platform.
func (l *Lab) Serve(ctx context.Context, out io.Writer) error {
	if l.err != nil {
		return l.err
	}
	return serve(ctx, l.dir, out, nil)
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
