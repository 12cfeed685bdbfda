package lab

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
	p, err := startProc(procSpec{name: "broken", dir: dir, logPath: filepath.Join(dir, "broken.log"),
		argv: []string{"/bin/sh", "-c", "echo first line; echo 'fatal: cannot bind 127.0.0.1:1' >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = p.waitReady(ctx, func(context.Context) error { return errors.New("never ready") })
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
	ps := procSpec{name: "parent", dir: dir, logPath: filepath.Join(dir, "parent.log"),
		argv: []string{"/bin/sh", "-c", script}}
	withCgroup := os.Geteuid() == 0 && cgroupsAvailable()
	if withCgroup {
		parent := "authbench-test-" + strconv.Itoa(os.Getpid())
		ps.cgroup = parent + "/proc"
		t.Cleanup(func() {
			if g, err := cgroup.Create(parent); err == nil {
				_ = g.Remove()
			}
		})
		ps.limit = Limit{MilliCPU: 50}
	}
	p, err := startProc(ps)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.waitReady(ctx, fileReady(marker)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pidfile)
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !processAlive(child) {
		t.Fatalf("child %d not running", child)
	}
	if withCgroup {
		d, _ := p.cg.Dir("cpu")
		q, _ := os.ReadFile(filepath.Join(d, "cpu.cfs_quota_us"))
		if d2, ok := p.cg.Dir("cpu"); ok && fileExists(filepath.Join(d2, "cpu.max")) {
			q, _ = os.ReadFile(filepath.Join(d2, "cpu.max"))
		}
		if !strings.HasPrefix(strings.TrimSpace(string(q)), "5000") {
			t.Errorf("cpu quota = %q, want 5000 (50m of a 100ms period)", q)
		}
		pids, _ := p.cg.PIDs()
		if !containsInt(pids, p.pid()) || !containsInt(pids, child) {
			t.Errorf("cgroup pids %v lack the component %d or its child %d", pids, p.pid(), child)
		}
	}
	p.stop(2 * time.Second)
	if processAlive(p.pid()) {
		t.Errorf("component %d survived stop", p.pid())
	}
	if withCgroup && processAlive(child) {
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
	got := tail(f, 3)
	if got != "  | line 27\n  | line 28\n  | line 29" {
		t.Errorf("tail = %q", got)
	}
}
