package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
)

func fileReady(path string) func(context.Context) error {
	return func(context.Context) error {
		if _, err := os.Stat(path); err != nil {
			return errors.New("not yet")
		}
		return nil
	}
}

func TestProcDiesAtStartShowsLogTail(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(Spec{Name: "broken", Dir: dir, LogPath: filepath.Join(dir, "broken.log"),
		Argv: []string{"/bin/sh", "-c", "echo first line; echo 'fatal: cannot bind 127.0.0.1:1' >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = p.WaitReady(ctx, func(context.Context) error { return errors.New("never ready") })
	if err == nil {
		t.Fatal("waitReady succeeded for a process that exited")
	}
	for _, want := range []string{"broken", "exit status 3", "fatal: cannot bind 127.0.0.1:1", "first line"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestProcReadyAndStopKillsChildren(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ready")
	pidfile := filepath.Join(dir, "child.pid")
	// The child changes process group, as a daemonising child would.
	script := "setsid sleep 300 & echo $! > " + pidfile + "; touch " + marker + "; exec sleep 300"
	ps := Spec{Name: "parent", Dir: dir, LogPath: filepath.Join(dir, "parent.log"),
		Argv: []string{"/bin/sh", "-c", script}}
	withCgroup := os.Geteuid() == 0 && cgroupsAvailable()
	if withCgroup {
		parent := "authbench-test-" + strconv.Itoa(os.Getpid())
		ps.Cgroup = parent + "/proc"
		t.Cleanup(func() {
			if g, err := cgroup.Create(parent); err == nil {
				_ = g.Remove()
			}
		})
		ps.MilliCPU = 50
	}
	p, err := Start(ps)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitReady(ctx, fileReady(marker)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pidfile)
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !lock.ProcessAlive(child) {
		t.Fatalf("child %d not running", child)
	}
	if withCgroup {
		d, _ := p.cg.Dir("cpu")
		q, _ := os.ReadFile(filepath.Join(d, "cpu.cfs_quota_us"))
		if d2, ok := p.cg.Dir("cpu"); ok && exists(filepath.Join(d2, "cpu.max")) {
			q, _ = os.ReadFile(filepath.Join(d2, "cpu.max"))
		}
		if !strings.HasPrefix(strings.TrimSpace(string(q)), "5000") {
			t.Errorf("cpu quota = %q, want 5000 (50m of a 100ms period)", q)
		}
		pids, _ := p.cg.PIDs()
		if !containsInt(pids, p.PID()) || !containsInt(pids, child) {
			t.Errorf("cgroup pids %v lack the component %d or its child %d", pids, p.PID(), child)
		}
	}
	p.Stop(2 * time.Second)
	if lock.ProcessAlive(p.PID()) {
		t.Errorf("component %d survived stop", p.PID())
	}
	if withCgroup && lock.ProcessAlive(child) {
		t.Errorf("child %d in another process group survived stop (cgroup kill)", child)
	}
	if !withCgroup {
		_ = syscall.Kill(child, syscall.SIGKILL)
	}
}

func cgroupsAvailable() bool {
	_, err := cgroup.Detect()
	return err == nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestTail(t *testing.T) {
	f := filepath.Join(t.TempDir(), "log")
	var lines []string
	for i := range 30 {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	got := Tail(f, 3)
	if got != "  | line 27\n  | line 28\n  | line 29" {
		t.Errorf("tail = %q", got)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
