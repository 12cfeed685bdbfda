package processes

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/authbench/authbench/pkg/lab/standin"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/lab/internal/ports"
	"github.com/authbench/authbench/pkg/lab/internal/proc"
	"github.com/authbench/authbench/pkg/stacks"
)

// ServeEnv is set in the supervisor's environment to the lab dir it serves,
// so that a test binary standing in for authbench can act as supervisor.
const ServeEnv = "AUTHBENCH_LAB_SERVE_DIR"

// serve runs the lab that dir/request.json describes in the calling
// process: it starts every component, writes state.json when all are ready
// (or failed), keeps them running until ctx ends, then stops them all. It
// is what the background supervisor (`lab serve`) and `lab up --foreground`
// run. Progress lines go to out.
// serve is Serve with a callback run once the lab is ready.
func serve(ctx context.Context, dir string, out io.Writer, onReady func(*lab.State)) error {
	dir, err := lab.AbsDir(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating lab dir: %w", err)
	}
	lock, err := lock.Acquire(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	cfg, err := lab.ReadRequest(dir)
	if err != nil {
		return err
	}
	s := &supervisor{dir: dir, cfg: cfg, out: out, procs: map[string]*proc.Proc{}}
	if n := s.killLeftovers(); n > 0 {
		s.logf("killed %d process(es) left by a previous lab in %s", n, dir)
	}
	s.endFaults()
	s.state = &lab.State{Dir: dir, Phase: lab.PhaseStarting, Supervisor: os.Getpid(), Started: time.Now(), Stacks: cfg.Stacks}
	s.logf("starting the lab in %s: stacks %s (supervisor pid %d)", dir, strings.Join(cfg.Stacks, ", "), os.Getpid())
	if err := s.start(ctx); err != nil {
		if ctx.Err() != nil {
			s.logf("stop requested before the lab was ready; stopping what started")
			s.stopAll()
			s.update(func(st *lab.State) { st.Phase = lab.PhaseStopped })
			return nil
		}
		// The caller reports err itself (the CLI prints it to this log).
		s.logf("lab failed; stopping what started")
		s.stopAll()
		s.update(func(st *lab.State) { st.Phase, st.Error = lab.PhaseFailed, err.Error() })
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
	s.update(func(st *lab.State) { st.Phase = lab.PhaseStopping })
	s.stopAll()
	s.endFaults()
	s.update(func(st *lab.State) { st.Phase = lab.PhaseStopped })
	s.logf("lab stopped")
	return nil
}

// supervisor is the state of one Serve call.
type supervisor struct {
	dir      string
	cfg      lab.Config
	out      io.Writer
	outMu    sync.Mutex
	mu       sync.Mutex // guards state and procs
	state    *lab.State
	procs    map[string]*proc.Proc
	cgroups  bool
	stopping atomic.Bool
}

// endFaults logs the end of every fault in force: the fault proxy stopped
// (or a previous lab's died) with them.
func (s *supervisor) endFaults() {
	if err := lab.EndFaults(s.dir, time.Now()); err != nil {
		s.logf("warning: %v", err)
	}
}

func (s *supervisor) logf(format string, args ...any) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	fmt.Fprintf(s.out, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// update changes the state under the lock and writes state.json, keeping
// the limits `lab limit` changed there meanwhile.
func (s *supervisor) update(f func(*lab.State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if unlock, err := lock.State(s.dir); err != nil {
		s.logf("warning: %v", err)
	} else {
		defer unlock()
		keepLiveLimits(s.dir, s.state)
	}
	f(s.state)
	if err := lab.WriteState(s.dir, s.state); err != nil {
		s.logf("warning: %v", err)
	}
}

func (s *supervisor) setComponent(name string, f func(*lab.ComponentInfo)) {
	s.update(func(st *lab.State) {
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
	if err := s.applyClientRTT(ctx, b); err != nil {
		return err
	}
	scen, err := lab.ScenarioYAML(s.state)
	if err == nil {
		err = writeFileAtomic(filepath.Join(s.dir, lab.ScenarioFile), scen, 0o644)
	}
	if err != nil {
		return fmt.Errorf("writing scenario: %w", err)
	}
	now := time.Now()
	s.update(func(st *lab.State) { st.Phase, st.ReadyAt = lab.PhaseReady, &now })
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
	certs, err := stacks.EnsureCerts(s.dir)
	if err != nil {
		return nil, nil, err
	}
	secrets, err := stacks.EnsureSecrets(s.dir)
	if err != nil {
		return nil, nil, err
	}
	if err := stacks.EnsureTokenPool(secrets, s.cfg.TokenPool); err != nil {
		return nil, nil, err
	}
	names := portNames(s.cfg)
	if err := ports.ValidatePinned(s.cfg.Ports, names); err != nil {
		return nil, nil, err
	}
	used, err := ports.Allocate(names, s.cfg.Ports, ports.Read(s.dir))
	if err != nil {
		return nil, nil, err
	}
	if b, err := json.MarshalIndent(used, "", "  "); err == nil {
		_ = writeFileAtomic(filepath.Join(s.dir, ports.File), append(b, '\n'), 0o644)
	}
	client, err := newLabClient(certs.CA)
	if err != nil {
		return nil, nil, err
	}
	b := &builder{dir: s.dir, cfg: s.cfg, ports: used, certs: certs, secrets: secrets, client: client}
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
	s.update(func(st *lab.State) {
		st.Ports, st.CACert, st.Cgroups = used, certs.CA, cgNote
		st.Components = nil
		for _, sp := range specs {
			c := sp.ComponentInfo
			c.Status, c.Exe = lab.StatusStarting, sp.argv[0]
			st.Components = append(st.Components, c)
		}
		st.Targets = b.clientTargets(stackTargets(s.cfg, specs))
		st.Links = b.links()
		st.Notes = labNotes(s.cfg, specs)
		st.Authz = s.cfg.Authz()
		if s.cfg.TokenPool > 0 {
			st.TokenPool = &lab.TokenPool{Users: s.cfg.TokenPool, File: secrets.TokenFile(stacks.TokenPoolFile),
				First: stacks.PoolUser(1), Last: stacks.PoolUser(s.cfg.TokenPool)}
			st.Notes = append(st.Notes, fmt.Sprintf("token pool: %d static tokens for %s ... %s (bound like alice) in %s; the static-token stacks' scenario targets send them round-robin",
				s.cfg.TokenPool, stacks.PoolUser(1), stacks.PoolUser(s.cfg.TokenPool), st.TokenPool.File))
		}
	})
	return b, specs, nil
}

// ServeIfAsked runs the supervisor and exits when this process was started
// as one (ServeEnv is set), and returns otherwise. A test binary calls it
// first in TestMain so that it can be its own lab's supervisor.
// A stand-in the supervisor started inherits ServeEnv, so its own
// variable is looked at first: a test binary is then the stand-in too.
func ServeIfAsked() {
	if v := os.Getenv(standin.Env); v != "" {
		runStandin(v)
	}
	dir := os.Getenv(ServeEnv)
	if dir == "" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := serve(ctx, dir, os.Stdout, nil)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lab serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runStandin serves the stand-in configured by v and exits.
func runStandin(v string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	c, err := standin.Decode(v)
	if err == nil {
		err = standin.Run(ctx, c, os.Stderr)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lab standin:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
