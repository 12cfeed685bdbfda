package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
)

// ServeEnv is set in the supervisor's environment to the lab dir it serves,
// so that a test binary standing in for authbench can act as supervisor.
const ServeEnv = "AUTHBENCH_LAB_SERVE_DIR"

const portsFile = "ports.json"

// Serve runs the lab that dir/request.json describes in the calling
// process: it starts every component, writes state.json when all are ready
// (or failed), keeps them running until ctx ends, then stops them all. It
// is what the background supervisor (`lab serve`) and `lab up --foreground`
// run. Progress lines go to out.
func Serve(ctx context.Context, dir string, out io.Writer) error {
	return serve(ctx, dir, out, nil)
}

// serve is Serve with a callback run once the lab is ready.
func serve(ctx context.Context, dir string, out io.Writer, onReady func(*State)) error {
	dir, err := absDir(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating lab dir: %w", err)
	}
	lock, err := acquireLock(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	cfg, err := readRequest(dir)
	if err != nil {
		return err
	}
	s := &supervisor{dir: dir, cfg: cfg, out: out, procs: map[string]*proc{}}
	if n := s.killLeftovers(); n > 0 {
		s.logf("killed %d process(es) left by a previous lab in %s", n, dir)
	}
	s.state = &State{Dir: dir, Phase: phaseStarting, Supervisor: os.Getpid(), Started: time.Now(), Stacks: cfg.Stacks}
	s.logf("starting the lab in %s: stacks %s (supervisor pid %d)", dir, strings.Join(cfg.Stacks, ", "), os.Getpid())
	if err := s.start(ctx); err != nil {
		if ctx.Err() != nil {
			s.logf("stop requested before the lab was ready; stopping what started")
			s.stopAll()
			s.update(func(st *State) { st.Phase = phaseStopped })
			return nil
		}
		// The caller reports err itself (the CLI prints it to this log).
		s.logf("lab failed; stopping what started")
		s.stopAll()
		s.update(func(st *State) { st.Phase, st.Error = phaseFailed, err.Error() })
		return err
	}
	if onReady != nil {
		s.mu.Lock()
		st := *s.state
		s.mu.Unlock()
		onReady(&st)
	}
	<-ctx.Done()
	s.logf("stopping the lab")
	s.update(func(st *State) { st.Phase = phaseStopping })
	s.stopAll()
	s.update(func(st *State) { st.Phase = phaseStopped })
	s.logf("lab stopped")
	return nil
}

// supervisor is the state of one Serve call.
type supervisor struct {
	dir      string
	cfg      Config
	out      io.Writer
	outMu    sync.Mutex
	mu       sync.Mutex // guards state and procs
	state    *State
	procs    map[string]*proc
	cgroups  bool
	stopping atomic.Bool
}

func (s *supervisor) logf(format string, args ...any) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	fmt.Fprintf(s.out, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// update changes the state under the lock and writes state.json.
func (s *supervisor) update(f func(*State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.state)
	if err := writeState(s.dir, s.state); err != nil {
		s.logf("warning: %v", err)
	}
}

func (s *supervisor) setComponent(name string, f func(*ComponentInfo)) {
	s.update(func(st *State) {
		for i := range st.Components {
			if st.Components[i].Name == name {
				f(&st.Components[i])
			}
		}
	})
}

// start prepares the lab's files and starts every component, in
// dependency order and in parallel where independent.
func (s *supervisor) start(ctx context.Context) error {
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ReadyTimeout)
	defer cancel()
	b, specs, err := s.plan()
	if err != nil {
		return err
	}
	if err := s.runGraph(ctx, b, specs); err != nil {
		return err
	}
	scen, err := scenarioYAML(s.state)
	if err == nil {
		err = writeFileAtomic(filepath.Join(s.dir, ScenarioFile), scen, 0o644)
	}
	if err != nil {
		return fmt.Errorf("writing scenario: %w", err)
	}
	now := time.Now()
	s.update(func(st *State) { st.Phase, st.ReadyAt = phaseReady, &now })
	s.logf("lab ready in %.1fs", time.Since(t0).Seconds())
	for _, p := range s.procs {
		go s.watch(p)
	}
	return nil
}

// plan creates certificates, secrets and ports and builds the specs.
func (s *supervisor) plan() (*builder, []*spec, error) {
	for _, d := range []string{"logs", "conf", "data", "run", "kubeconfig"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o700); err != nil {
			return nil, nil, fmt.Errorf("creating lab dir: %w", err)
		}
	}
	certs, err := EnsureCerts(s.dir)
	if err != nil {
		return nil, nil, err
	}
	secrets, err := EnsureSecrets(s.dir)
	if err != nil {
		return nil, nil, err
	}
	names := portNames(s.cfg)
	if err := validatePinned(s.cfg.Ports, names); err != nil {
		return nil, nil, err
	}
	ports, err := allocatePorts(names, s.cfg.Ports, readPorts(s.dir))
	if err != nil {
		return nil, nil, err
	}
	if b, err := json.MarshalIndent(ports, "", "  "); err == nil {
		_ = writeFileAtomic(filepath.Join(s.dir, portsFile), append(b, '\n'), 0o644)
	}
	client, err := newLabClient(certs.CA)
	if err != nil {
		return nil, nil, err
	}
	b := &builder{dir: s.dir, cfg: s.cfg, ports: ports, certs: certs, secrets: secrets, client: client}
	specs, err := b.specs()
	if err != nil {
		return nil, nil, err
	}
	if err := applyLimits(specs, s.cfg.Limits); err != nil {
		return nil, nil, err
	}
	cgVersion, cgErr := cgroup.Detect()
	s.cgroups = cgErr == nil
	cgNote := cgVersion.String()
	if cgErr != nil {
		if len(s.cfg.Limits) > 0 {
			return nil, nil, fmt.Errorf("--limit needs cgroups: %w", cgErr)
		}
		cgNote = "none: " + cgErr.Error()
		s.logf("warning: components run without cgroups: %v", cgErr)
	}
	s.update(func(st *State) {
		st.Ports, st.CACert, st.Cgroups = ports, certs.CA, cgNote
		st.Components = nil
		for _, sp := range specs {
			c := sp.ComponentInfo
			c.Status, c.Exe = statusStarting, sp.argv[0]
			st.Components = append(st.Components, c)
		}
		st.Targets = stackTargets(s.cfg, specs)
		st.Notes = labNotes(specs)
	})
	return b, specs, nil
}

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
		if err := checkPortFree(b.ports[pn]); err != nil {
			return fmt.Errorf("starting %s: %w (another program holds it; pin another with --port %s=PORT)", sp.Name, err, pn)
		}
	}
	if sp.prepare != nil {
		if err := sp.prepare(); err != nil {
			return fmt.Errorf("preparing %s: %w", sp.Name, err)
		}
	}
	ps := procSpec{name: sp.Name, argv: sp.argv, env: sp.env, exactEnv: sp.exactEnv, dir: s.dir, logPath: sp.Log, limit: sp.limit}
	if s.cgroups {
		ps.cgroup = s.cgroupRel(sp.Name)
	}
	p, err := startProc(ps)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.procs[sp.Name] = p
	s.mu.Unlock()
	cg := ""
	if p.cg != nil {
		cg = p.cg.Path()
	}
	s.setComponent(sp.Name, func(c *ComponentInfo) { c.PID, c.Cgroup = p.pid(), cg })
	if err := p.waitReady(ctx, sp.ready); err != nil {
		return err
	}
	if sp.setup != nil {
		if err := sp.setup(ctx); err != nil {
			return fmt.Errorf("setting up %s: %w", sp.Name, err)
		}
	}
	d := time.Since(t0).Seconds()
	s.setComponent(sp.Name, func(c *ComponentInfo) { c.Status, c.StartupS = statusRunning, round(d, 2) })
	s.logf("%-16s ready in %5.1fs  pid %-7d %s", sp.Name, d, p.pid(), sp.URL)
	return nil
}

// watch records a component that exits while the lab runs.
func (s *supervisor) watch(p *proc) {
	<-p.done
	if s.stopping.Load() {
		return
	}
	s.logf("%s exited unexpectedly (%v); last lines of %s:\n%s", p.name, p.waitErr, p.logPath, tail(p.logPath, logTailLines))
	s.setComponent(p.name, func(c *ComponentInfo) { c.Status = statusExited })
}

// stopAll stops every started component in parallel: SIGTERM to its
// process group, SIGKILL after its grace, then its cgroup is killed and
// removed so that no child of a child survives.
func (s *supervisor) stopAll() {
	s.stopping.Store(true)
	s.mu.Lock()
	procs := make([]*proc, 0, len(s.procs))
	for _, p := range s.procs {
		procs = append(procs, p)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop(5 * time.Second)
		}()
	}
	wg.Wait()
	if s.cgroups {
		if g, err := cgroup.Open(s.cgroupParent()); err == nil {
			_ = g.Remove()
		}
	}
	for _, p := range procs {
		s.setComponent(p.name, func(c *ComponentInfo) { c.Status = statusExited })
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

// cgroupParent is this lab's group, unique per lab dir.
func (s *supervisor) cgroupParent() string {
	h := sha256.Sum256([]byte(s.dir))
	return "authbench/lab-" + hex.EncodeToString(h[:4])
}

func (s *supervisor) cgroupRel(name string) string { return s.cgroupParent() + "/" + name }

// applyLimits attaches each limit to the components it names: the exact
// component name, or else every component of that program ("http-echo").
func applyLimits(specs []*spec, limits []Limit) error {
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

func readPorts(dir string) map[string]int {
	var m map[string]int
	b, err := os.ReadFile(filepath.Join(dir, portsFile))
	if err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}
