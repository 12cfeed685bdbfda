package observe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/results"
)

const helperEnv = "AUTHBENCH_OBSERVE_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "busy":
		for {
		}
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "burn":
		burn()
	}
	os.Exit(m.Run())
}

// burn idles until a line arrives on stdin, then uses about 40% of a core
// (4 ms busy in every 10 ms) until killed.
func burn() {
	os.Stdin.Read(make([]byte, 1))
	for {
		t := time.Now()
		for time.Since(t) < 4*time.Millisecond {
		}
		time.Sleep(6 * time.Millisecond)
	}
}

func helper(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), helperEnv+"="+mode)
	t.Cleanup(func() {
		if c.Process != nil {
			c.Process.Kill()
			c.Wait()
		}
	})
	return c
}

// limitedGroup creates a cgroup with a CPU limit, or skips the test.
func limitedGroup(t *testing.T, millicores int64) *cgroup.Group {
	t.Helper()
	parent := fmt.Sprintf("authbench-observe-test-%d", os.Getpid())
	g, err := cgroup.Create(parent + "/proxy")
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, cgroup.ErrNoCgroups) {
		t.Skipf("cgroups cannot be created here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		g.Remove()
		if p, err := cgroup.Open(parent); err == nil {
			p.Remove()
		}
	})
	if err := g.SetCPULimit(millicores); err != nil {
		t.Skipf("CPU limits cannot be set here: %v", err)
	}
	return g
}

func byName(us []results.ComponentUsage) map[string]results.ComponentUsage {
	out := map[string]results.ComponentUsage{}
	for _, u := range us {
		out[u.Name] = u
	}
	return out
}

// TestMonitorSeesThrottlingOfABusyLoopAt50m puts a busy loop under a 50m limit,
// samples it as a cgroup and as a pid, and checks what the migration reports
// missed: a low mean CPU, a high throttled ratio, and the diagnosis.
func TestMonitorSeesThrottlingOfABusyLoopAt50m(t *testing.T) {
	g := limitedGroup(t, 50)
	busy := helper(t, "busy")
	if err := g.Start(busy); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the shell exec the helper
	s, err := NewLocal([]LocalComponent{
		{Name: "proxy", Role: "auth-proxy", Cgroup: g.Path()},
		{Name: "proxy-pid", Role: "auth-proxy", PID: busy.Process.Pid},
		Self(),
	}, LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMonitor([]Sampler{s}, 200*time.Millisecond)
	m.Idle = 300 * time.Millisecond
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	start := time.Now()
	time.Sleep(2 * time.Second)
	end := time.Now()
	us := byName(m.Usage(start, end, 58))
	for _, name := range []string{"proxy", "proxy-pid"} {
		u := us[name]
		t.Logf("%s: mean %.4f peak %.4f limit %.3f throttled %.2f (%d/%d, %.2fs) mem %.0f", name, u.CPUMean, u.CPUPeak,
			u.CPULimit, u.ThrottledRatio, u.ThrottledPeriods, u.Periods, u.ThrottledSeconds, u.MemPeak)
		if u.CPUMean < 0.03 || u.CPUMean > 0.08 {
			t.Errorf("%s mean CPU = %.4f, want about 0.05 (the limit)", name, u.CPUMean)
		}
		if u.CPULimit != 0.05 || u.ThrottledRatio < 0.5 || u.ThrottledSeconds < 1 {
			t.Errorf("%s limit %v, throttled ratio %v, %v s; want 0.05, most periods, over a second", name,
				u.CPULimit, u.ThrottledRatio, u.ThrottledSeconds)
		}
		if len(u.Samples) < 8 || u.MemPeak <= 0 {
			t.Errorf("%s: %d samples, mem peak %v", name, len(u.Samples), u.MemPeak)
		}
	}
	if self := us["authbench"]; self.Role != RoleLoadGenerator || self.MemPeak <= 0 {
		t.Errorf("authbench itself: %+v", self)
	}
	run := &results.Run{Results: []results.Result{{Target: "lab", Iteration: 1, Requests: 58, ThroughputRPS: 29,
		Components: m.Usage(start, end, 58)}}}
	var found bool
	for _, f := range analyze.Diagnose(run, nil) {
		found = found || (f.Kind == analyze.KindCPUThrottling && f.Component == "proxy")
	}
	if !found {
		t.Error("no cpu-throttling finding names the proxy")
	}
}

func TestProcessNameSumsEveryProcess(t *testing.T) {
	for range 2 {
		if err := helper(t, "sleep").Start(); err != nil {
			t.Fatal(err)
		}
	}
	name := strings.TrimSpace(string(must(os.ReadFile("/proc/self/comm"))))
	s, err := NewLocal([]LocalComponent{{Name: "tests", Process: name}}, LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := s.readers[0].(*nameReader)
	p, err := s.Poll(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.last) < 3 || p[0].MemBytes <= 0 {
		t.Errorf("process %q: %d processes, %v bytes; want this test and its 2 helpers", name, len(r.last), p[0].MemBytes)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestNewLocalErrors(t *testing.T) {
	tests := []struct {
		name string
		c    LocalComponent
		want string
	}{
		{"no name", LocalComponent{PID: os.Getpid()}, "no name"},
		{"no selector", LocalComponent{Name: "x"}, "none of cgroup, pid, process"},
		{"missing pid", LocalComponent{Name: "x", PID: 1 << 30}, "reading pid"},
		{"missing cgroup", LocalComponent{Name: "x", Cgroup: "/no/such/group/anywhere"}, "no/such/group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewLocal([]LocalComponent{tt.c}, LocalOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMonitorFailsWhenNothingReadable(t *testing.T) {
	c := helper(t, "sleep")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	s, err := NewLocal([]LocalComponent{{Name: "gone", PID: c.Process.Pid}}, LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Process.Kill()
	c.Wait()
	m := NewMonitor([]Sampler{s}, time.Second)
	if err := m.Start(context.Background()); err == nil {
		m.Stop()
		t.Fatal("Start with only a dead process: want an error")
	}
}
