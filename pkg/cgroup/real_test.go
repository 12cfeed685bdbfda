package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a child process for the real tests.
const helperEnv = "AUTHBENCH_CGROUP_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "busy":
		for {
		}
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "spawn":
		spawnGrandchildren()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// spawnGrandchildren waits for a line on stdin (sent once it is in the
// group), then starts two sleepers and waits for them.
func spawnGrandchildren() {
	bufio.NewReader(os.Stdin).ReadString('\n')
	var cmds []*exec.Cmd
	for range 2 {
		c := helper("sleep")
		if c.Start() == nil {
			cmds = append(cmds, c)
		}
	}
	fmt.Println("spawned")
	for _, c := range cmds {
		c.Wait()
	}
}

func helper(mode string) *exec.Cmd {
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), helperEnv+"="+mode)
	return c
}

// realGroup creates a group on this machine's cgroups, or skips the test
// with the reason when the machine does not allow it.
func realGroup(t *testing.T, name string) *Group {
	t.Helper()
	v, err := Detect()
	if err != nil {
		t.Skipf("no cgroups on this machine: %v", err)
	}
	rel := fmt.Sprintf("authbench-test-%d/%s", os.Getpid(), name)
	g, err := Create(rel)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		t.Skipf("creating cgroups is not permitted here (%s): %v", v, err)
	}
	if err != nil {
		t.Fatalf("Create(%q) on %s: %v", rel, v, err)
	}
	t.Cleanup(func() {
		if err := g.Remove(); err != nil {
			t.Errorf("Remove: %v", err)
		}
		if parent, err := Open(fmt.Sprintf("authbench-test-%d", os.Getpid())); err == nil {
			parent.Remove()
		}
	})
	return g
}

func TestRealThrottlingAt50m(t *testing.T) {
	g := realGroup(t, "throttle")
	if err := g.SetCPULimit(50); err != nil {
		t.Skipf("setting a CPU limit is not permitted here: %v", err)
	}
	busy := helper("busy")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer busy.Process.Kill()
	if err := g.Add(busy.Process.Pid); err != nil {
		t.Fatal(err)
	}
	before, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	time.Sleep(1500 * time.Millisecond)
	after, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	used := after.CPUUsage - before.CPUUsage
	throttled := after.ThrottledPeriods - before.ThrottledPeriods
	periods := after.Periods - before.Periods
	t.Logf("%s: limit %.3f cores, used %s in %s (%.3f cores), throttled %d of %d periods, %s",
		g.Version(), after.CPULimit, used, wall, used.Seconds()/wall.Seconds(), throttled, periods,
		after.ThrottledTime-before.ThrottledTime)
	if after.CPULimit != 0.05 {
		t.Errorf("CPULimit = %v, want 0.05", after.CPULimit)
	}
	if throttled < 5 || float64(throttled) < 0.5*float64(periods) {
		t.Errorf("a busy loop under 50m was throttled in %d of %d periods; want most", throttled, periods)
	}
	if cores := used.Seconds() / wall.Seconds(); cores > 0.1 {
		t.Errorf("a busy loop under 50m used %.3f cores; want about 0.05", cores)
	}
	if pids, _ := g.PIDs(); len(pids) != 1 || pids[0] != busy.Process.Pid {
		t.Errorf("PIDs() = %v, want [%d]", pids, busy.Process.Pid)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := busy.Wait(); err == nil {
		t.Error("busy loop exited cleanly; want it killed by Remove")
	}
	if d, _ := g.Dir("cpu"); exists(d) {
		t.Errorf("%s still exists after Remove", d)
	}
}

func TestRealKillReachesGrandchildren(t *testing.T) {
	g := realGroup(t, "kill")
	parent := helper("spawn")
	in, err := parent.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	if err := g.Add(parent.Process.Pid); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(in)
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "spawned\n" {
		t.Fatalf("helper said %q", line)
	}
	pids, err := g.PIDs()
	if err != nil || len(pids) != 3 {
		t.Fatalf("PIDs() = %v, %v; want the helper and its 2 children", pids, err)
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	for _, p := range pids {
		if p != parent.Process.Pid && syscall.Kill(p, 0) == nil && !isZombie(p) {
			t.Errorf("pid %d still alive after Kill", p)
		}
	}
	if left, _ := g.PIDs(); len(left) != 0 {
		t.Errorf("PIDs() after Kill = %v", left)
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	for i := len(b) - 1; i > 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return b[i+2] == 'Z'
		}
	}
	return false
}

func TestRealMemoryLimitAndForPID(t *testing.T) {
	g := realGroup(t, "mem")
	if err := g.SetMemoryLimit(64 << 20); err != nil {
		t.Skipf("setting a memory limit is not permitted here: %v", err)
	}
	sleeper := helper("sleep")
	if err := g.Start(sleeper); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	waitForPID(t, g, sleeper.Process.Pid)
	got, err := ForPID(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path() != g.Path() {
		t.Errorf("ForPID(helper).Path() = %q, want %q", got.Path(), g.Path())
	}
	s, err := got.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.MemoryLimit != 64<<20 {
		t.Errorf("MemoryLimit = %d, want %d", s.MemoryLimit, 64<<20)
	}
	if s.MemoryWorkingSet <= 0 || s.MemoryWorkingSet > 64<<20 {
		t.Errorf("MemoryWorkingSet = %d; want a running Go process's few MB", s.MemoryWorkingSet)
	}
	reopened, err := Open(g.Path())
	if err != nil || !sameDirs(reopened, g) {
		t.Errorf("Open(Path()) = %v, %v; want the same directories", reopened, err)
	}
}

// waitForPID waits until the process started through Group.Start is in g,
// with its own program exec'ed (the shell's comm is "sh").
func waitForPID(t *testing.T, g *Group, pid int) {
	t.Helper()
	for range 200 {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if pids, _ := g.PIDs(); len(pids) == 1 && pids[0] == pid && string(comm) != "sh\n" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("pid %d never showed up in %s", pid, g.Path())
}

func sameDirs(a, b *Group) bool {
	if len(a.dirs) != len(b.dirs) {
		return false
	}
	for k, v := range a.dirs {
		if b.dirs[k] != v {
			return false
		}
	}
	return true
}
