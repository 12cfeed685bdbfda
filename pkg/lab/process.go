package lab

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

// logTailLines is how much of a failed component's log an error shows.
const logTailLines = 20

// gateScript holds a component back until the supervisor has put the shell
// in its cgroup, then execs the component in place (same pid), so the
// component and all its children start inside the cgroup.
const gateScript = `read -r _ <&3; exec 3<&-; exec "$@"`

// proc is one running component process.
type proc struct {
	name    string
	cmd     *exec.Cmd
	cg      *cgroup.Group
	logPath string
	limit   Limit
	done    chan struct{} // closed when the process has exited
	waitErr error
}

// procSpec is what startProc needs to start one process.
type procSpec struct {
	name string
	argv []string
	env  []string
	// exactEnv makes env the whole environment.
	exactEnv bool
	dir      string
	logPath  string
	cgroup   string // relative cgroup to create; "" for none
	limit    Limit
}

// startProc starts argv in its own process group, killed with the
// supervisor (Pdeathsig), with stdout and stderr in its log, inside a fresh
// cgroup carrying its limit.
func startProc(ps procSpec) (*proc, error) {
	logf, err := os.OpenFile(ps.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log of %s: %w", ps.name, err)
	}
	defer logf.Close()
	p := &proc{name: ps.name, logPath: ps.logPath, limit: ps.limit, done: make(chan struct{})}
	if ps.cgroup != "" {
		if p.cg, err = newCgroup(ps.cgroup, ps.limit); err != nil {
			return nil, fmt.Errorf("starting %s: %w", ps.name, err)
		}
	}
	argv := ps.argv
	var gateR, gateW *os.File
	if p.cg != nil {
		if gateR, gateW, err = os.Pipe(); err != nil {
			return nil, fmt.Errorf("starting %s: %w", ps.name, err)
		}
		defer gateR.Close()
		defer gateW.Close()
		argv = append([]string{"/bin/sh", "-c", gateScript, "sh"}, ps.argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), ps.env...)
	if ps.exactEnv {
		cmd.Env = ps.env
	}
	cmd.Dir = ps.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if gateR != nil {
		cmd.ExtraFiles = []*os.File{gateR}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		p.removeCgroup()
		return nil, fmt.Errorf("starting %s: %w", ps.name, err)
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	if p.cg != nil {
		if err := p.cg.Add(cmd.Process.Pid); err != nil {
			p.stop(time.Second)
			return nil, fmt.Errorf("starting %s: %w", ps.name, err)
		}
		// Releasing the gate lets the shell exec the component.
		gateW.Write([]byte("go\n"))
	}
	return p, nil
}

// newCgroup creates the group rel and applies the limit.
func newCgroup(rel string, l Limit) (*cgroup.Group, error) {
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
	if err := g.SetCPULimit(l.MilliCPU); err != nil {
		return nil, err
	}
	if l.MemoryBytes > 0 {
		if err := g.SetMemoryLimit(l.MemoryBytes); err != nil {
			return nil, err
		}
	} else if _, ok := g.Dir("memory"); ok {
		_ = g.SetMemoryLimit(0)
	}
	return g, nil
}

// pid is the component's process id (the gate shell became the component).
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes how the process ended, with its log tail.
func (p *proc) exitError() error {
	how := "exit status 0"
	if p.waitErr != nil {
		how = p.waitErr.Error()
	}
	if p.limit.MemoryBytes > 0 && strings.Contains(how, "killed") {
		how += fmt.Sprintf("; out of memory? its limit is %s", formatBytes(p.limit.MemoryBytes))
	}
	return fmt.Errorf("%s exited at start (%s); last lines of %s:\n%s", p.name, how, p.logPath, tail(p.logPath, logTailLines))
}

// stop sends SIGTERM to the process group, waits up to grace, then
// SIGKILLs the group, then kills whatever is left in the cgroup (children
// of children that changed process group) and removes it.
func (p *proc) stop(grace time.Duration) {
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

func (p *proc) removeCgroup() {
	if p.cg != nil {
		_ = p.cg.Remove()
	}
}

// waitReady polls check until it succeeds, the process exits, or ctx ends.
func (p *proc) waitReady(ctx context.Context, check func(context.Context) error) error {
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
				return fmt.Errorf("%s not ready in time: %v; last lines of %s:\n%s", p.name, last, p.logPath, tail(p.logPath, logTailLines))
			}
			return ctx.Err()
		case <-p.done:
		case <-tick.C:
		}
	}
}

// tail returns the last n lines of a file, indented for error messages.
func tail(path string, n int) string {
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

// killCgroup kills and removes a recorded cgroup, if it still exists, and
// returns how many processes it held.
func killCgroup(path string) int {
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
