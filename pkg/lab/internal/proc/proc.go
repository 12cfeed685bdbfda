// Package proc starts one lab component as a process: own process group,
// killed with its parent, a log file, and a fresh cgroup carrying its limit.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
)

// TailLines is how much of a failed component's log an error shows.
const TailLines = 20

// gateScript holds a component back until the supervisor has put the shell
// in its cgroup, then execs the component in place (same pid), so the
// component and all its children start inside the cgroup.
const gateScript = `read -r _ <&3; exec 3<&-; exec "$@"`

// Proc is one running component process.
type Proc struct {
	name    string
	cmd     *exec.Cmd
	cg      *cgroup.Group
	logPath string
	spec    Spec
	done    chan struct{} // closed when the process has exited
	waitErr error
}

// Spec is what Start needs to start one process.
type Spec struct {
	Name string
	Argv []string
	Env  []string
	// ExactEnv makes Env the whole environment. Default false: Env is
	// added to this process's environment.
	ExactEnv bool
	Dir      string
	LogPath  string
	// Cgroup is the relative cgroup to create. Default "": none.
	Cgroup string
	// MilliCPU and MemoryBytes limit the cgroup. Default 0: unlimited.
	MilliCPU    int64
	MemoryBytes int64
	// Memory is MemoryBytes for people ("256Mi"), for error messages.
	Memory string
}

// Start starts argv in its own process group, killed with the
// supervisor (Pdeathsig), with stdout and stderr in its log, inside a fresh
// cgroup carrying its limit.
func Start(ps Spec) (*Proc, error) {
	logf, err := os.OpenFile(ps.LogPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log of %s: %w", ps.Name, err)
	}
	defer logf.Close()
	p := &Proc{name: ps.Name, logPath: ps.LogPath, spec: ps, done: make(chan struct{})}
	if ps.Cgroup != "" {
		if p.cg, err = newCgroup(ps.Cgroup, ps.MilliCPU, ps.MemoryBytes); err != nil {
			return nil, fmt.Errorf("starting %s: %w", ps.Name, err)
		}
	}
	argv := ps.Argv
	var gateR, gateW *os.File
	if p.cg != nil {
		if gateR, gateW, err = os.Pipe(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", ps.Name, err)
		}
		defer gateR.Close()
		defer gateW.Close()
		argv = append([]string{"/bin/sh", "-c", gateScript, "sh"}, ps.Argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), ps.Env...)
	if ps.ExactEnv {
		cmd.Env = ps.Env
	}
	cmd.Dir = ps.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if gateR != nil {
		cmd.ExtraFiles = []*os.File{gateR}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		p.removeCgroup()
		return nil, fmt.Errorf("starting %s: %w", ps.Name, err)
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if p.cg != nil {
		if err := p.cg.Add(cmd.Process.Pid); err != nil {
			p.Stop(time.Second)
			return nil, fmt.Errorf("starting %s: %w", ps.Name, err)
		}
		// Releasing the gate lets the shell exec the component.
		gateW.Write([]byte("go\n"))
	}
	return p, nil
}

// newCgroup creates the group rel and applies the limit.
func newCgroup(rel string, milliCPU, memoryBytes int64) (*cgroup.Group, error) {
	g, err := cgroup.Create(rel)
	if err != nil {
		return nil, err
	}
	// A group left over from a crashed lab may still hold processes.
	if pids, _ := g.PIDs(); len(pids) > 0 {
		if err := g.Kill(); err != nil {
			return nil, err
		}
	}
	if err := g.SetCPULimit(milliCPU); err != nil {
		return nil, err
	}
	if memoryBytes > 0 {
		if err := g.SetMemoryLimit(memoryBytes); err != nil {
			return nil, err
		}
	} else if _, ok := g.Dir("memory"); ok {
		_ = g.SetMemoryLimit(0)
	}
	return g, nil
}

// PID is the component's process id (the gate shell became the component).
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Name is the component's name.
func (p *Proc) Name() string { return p.name }

// LogPath is the component's log file.
func (p *Proc) LogPath() string { return p.logPath }

// Cgroup is the path of the component's cgroup, "" without one.
func (p *Proc) Cgroup() string {
	if p.cg == nil {
		return ""
	}
	return p.cg.Path()
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// WaitErr is how the process ended; valid once Done is closed.
func (p *Proc) WaitErr() error { return p.waitErr }

// exited reports whether the process has exited.
func (p *Proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes how the process ended, with its log tail.
func (p *Proc) exitError() error {
	how := "exit status 0"
	if p.waitErr != nil {
		how = p.waitErr.Error()
	}
	if p.spec.MemoryBytes > 0 && strings.Contains(how, "killed") {
		how += fmt.Sprintf("; out of memory? its limit is %s", p.spec.Memory)
	}
	return fmt.Errorf("%s exited at start (%s); last lines of %s:\n%s", p.name, how, p.logPath, Tail(p.logPath, TailLines))
}

// Stop sends SIGTERM to the process group, waits up to grace, then
// SIGKILLs the group, then kills whatever is left in the cgroup (children
// of children that changed process group) and removes it.
func (p *Proc) Stop(grace time.Duration) {
	if p.cmd != nil && p.cmd.Process != nil {
		pgid := p.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	}
	p.removeCgroup()
}

func (p *Proc) removeCgroup() {
	if p.cg != nil {
		_ = p.cg.Remove()
	}
}

// WaitReady polls check until it succeeds, the process exits, or ctx ends.
func (p *Proc) WaitReady(ctx context.Context, check func(context.Context) error) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if p.exited() {
			return p.exitError()
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = check(cctx)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%s not ready in time: %v; last lines of %s:\n%s", p.name, last, p.logPath, Tail(p.logPath, TailLines))
			}
			return ctx.Err()
		case <-p.done:
		case <-tick.C:
		}
	}
}

// Tail returns the last n lines of a file, indented for error messages.
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "  (no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var out bytes.Buffer
	for _, l := range lines {
		if len(l) > 400 {
			l = l[:400] + "..."
		}
		out.WriteString("  | " + l + "\n")
	}
	return strings.TrimRight(out.String(), "\n")
}

// KillCgroup kills and removes a recorded cgroup, if it still exists, and
// returns how many processes it held.
func KillCgroup(path string) int {
	if path == "" {
		return 0
	}
	g, err := cgroup.Open(path)
	if err != nil {
		return 0
	}
	pids, _ := g.PIDs()
	_ = g.Remove()
	return len(pids)
}
