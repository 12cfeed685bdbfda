package processes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/lab/internal/proc"
)

// stopWait bounds how long Up (on Ctrl-C) and Down wait for the supervisor.
const stopWait = 60 * time.Second

// Up starts the lab in a detached supervisor process (or, Foreground, in
// this one) and returns its state once every component is ready.
func (Platform) Up(ctx context.Context, dir string, o lab.UpOptions) (*lab.State, error) {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		return nil, fmt.Errorf("creating lab dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("securing lab dir: %w", err)
	}
	if lock.Alive(dir) {
		return nil, alreadyRunning(dir)
	}
	cfg := o.Config
	if err := cfg.Complete(); err != nil {
		return nil, err
	}
	if err := lab.WriteRequest(dir, cfg); err != nil {
		return nil, err
	}
	if o.Foreground {
		onReady := func(s *lab.State) {
			_ = lab.WriteStatus(out, s)
			fmt.Fprintln(out, "\nthe lab runs until Ctrl-C")
		}
		return nil, serve(ctx, dir, out, onReady)
	}
	return upBackground(ctx, dir, o.Supervisor, out)
}

func alreadyRunning(dir string) error {
	msg := fmt.Sprintf("%v in %s (supervisor pid %d)", lab.ErrAlreadyRunning, dir, lock.Holder(dir))
	if s, err := lab.ReadState(dir); err == nil {
		msg += fmt.Sprintf(", %s, started %s", s.Phase, s.Started.Format(time.DateTime))
	}
	return &runningError{msg + ": `authbench lab status` shows it, `authbench lab down` stops it"}
}

// runningError is lab.ErrAlreadyRunning with the details of the running lab.
type runningError struct{ msg string }

func (e *runningError) Error() string { return e.msg }
func (e *runningError) Unwrap() error { return lab.ErrAlreadyRunning }

// upBackground starts the supervisor detached (own session, so it outlives
// this process and the terminal) and follows it until ready or failed.
func upBackground(ctx context.Context, dir string, argv []string, out io.Writer) (*lab.State, error) {
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the authbench executable: %w", err)
		}
		argv = []string{exe, "lab", "serve", "--lab-dir", dir}
	}
	logPath := filepath.Join(dir, lab.SupervisorLog)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening supervisor log: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), ServeEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return nil, fmt.Errorf("starting the lab supervisor: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	follow := &logFollower{path: logPath, out: out}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		follow.copy()
		// state.json may still be the previous lab's until our supervisor
		// writes its own.
		if s, err := lab.ReadState(dir); err == nil && s.Supervisor == cmd.Process.Pid {
			switch s.Phase {
			case lab.PhaseReady:
				return s, nil
			case lab.PhaseFailed:
				<-waitOr(exited, 30*time.Second)
				follow.copy()
				return nil, failure(dir, s.Error, out)
			}
		}
		select {
		case err := <-exited:
			follow.copy()
			if s, rerr := lab.ReadState(dir); rerr == nil && s.Supervisor == cmd.Process.Pid && s.Phase == lab.PhaseFailed {
				return nil, failure(dir, s.Error, out)
			}
			return nil, fmt.Errorf("lab supervisor exited before the lab was ready (%v); last lines of %s:\n%s", err, logPath, proc.Tail(logPath, proc.TailLines))
		case <-ctx.Done():
			fmt.Fprintln(out, "interrupted: stopping the lab")
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(stopWait):
				_ = cmd.Process.Kill()
				cleanupLeftovers(dir)
			}
			follow.copy()
			return nil, fmt.Errorf("lab up interrupted, lab stopped: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// failure is Up's error for a failed lab. When the supervisor's log was
// echoed to out the details are there already, so only the first line is
// repeated.
func failure(dir, msg string, out io.Writer) error {
	if out != io.Discard {
		msg, _, _ = strings.Cut(msg, "\n")
		msg += fmt.Sprintf(" (details above; logs in %s)", filepath.Join(dir, "logs"))
	}
	return fmt.Errorf("lab up failed: %s", msg)
}

func waitOr(ch <-chan error, d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
		case <-time.After(d):
		}
		close(done)
	}()
	return done
}

// logFollower copies what a log file gained since the last call.
type logFollower struct {
	path string
	off  int64
	out  io.Writer
}

func (f *logFollower) copy() {
	fh, err := os.Open(f.path)
	if err != nil {
		return
	}
	defer fh.Close()
	if _, err := fh.Seek(f.off, io.SeekStart); err != nil {
		return
	}
	n, _ := io.Copy(f.out, fh)
	f.off += n
}

// Down signals the supervisor, which stops every component, and waits for
// it. Processes of a supervisor that died are killed from the recorded
// state.
func (Platform) Down(ctx context.Context, dir string, out io.Writer) error {
	if !lock.Alive(dir) {
		n := cleanupLeftovers(dir)
		if n > 0 {
			fmt.Fprintf(out, "no lab supervisor in %s; killed %d leftover process(es)\n", dir, n)
		} else {
			fmt.Fprintf(out, "no lab running in %s\n", dir)
		}
		return nil
	}
	pid := lock.Holder(dir)
	if pid <= 0 {
		return fmt.Errorf("stopping the lab: no supervisor pid in %s", filepath.Join(dir, lock.File))
	}
	fmt.Fprintf(out, "stopping the lab in %s (supervisor pid %d)\n", dir, pid)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling the lab supervisor: %w", err)
	}
	deadline := time.Now().Add(stopWait)
	for lock.Alive(dir) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the lab to stop: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	for lock.ProcessAlive(pid) && time.Now().Before(deadline.Add(5*time.Second)) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := cleanupLeftovers(dir); n > 0 {
		fmt.Fprintf(out, "killed %d leftover process(es)\n", n)
	}
	fmt.Fprintln(out, "lab stopped")
	return nil
}

// cleanupLeftovers kills what a dead supervisor's state still records:
// each component's process group and cgroup. It returns how many
// recorded processes were still alive.
func cleanupLeftovers(dir string) int {
	s, err := lab.ReadState(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, c := range s.Components {
		if c.Cgroup != "" {
			n += proc.KillCgroup(c.Cgroup)
			continue
		}
		// Without a cgroup: a recorded pid may have been reused by now,
		// so kill it only if it still runs the component's program.
		if lock.ProcessAlive(c.PID) && lock.Runs(c.PID, c.Exe) {
			n++
			_ = syscall.Kill(-c.PID, syscall.SIGKILL)
			_ = syscall.Kill(c.PID, syscall.SIGKILL)
		}
	}
	if s.Phase != lab.PhaseStopped {
		s.Phase = lab.PhaseStopped
		for i := range s.Components {
			s.Components[i].Status = lab.StatusExited
		}
		_ = lab.WriteState(dir, s)
	}
	return n
}
