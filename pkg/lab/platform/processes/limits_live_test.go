package processes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/lock"
	"github.com/authbench/authbench/pkg/lab/internal/proc"
	"github.com/authbench/authbench/pkg/stacks"
)

func TestParseLimitsNone(t *testing.T) {
	tests := []struct {
		in      []string
		want    []lab.Limit
		wantErr string
	}{
		{in: []string{"oauth2-proxy=50m"}, want: []lab.Limit{{Component: "oauth2-proxy", MilliCPU: 50}}},
		{in: []string{"oauth2-proxy=none", "http-echo=200m,64Mi"},
			want: []lab.Limit{{Component: "oauth2-proxy"}, {Component: "http-echo", MilliCPU: 200, MemoryBytes: 64 << 20}}},
		{in: []string{" nginx = None "}, want: []lab.Limit{{Component: "nginx"}}},
		{in: []string{"=none"}, wantErr: "want COMPONENT=CPU[,MEM]"},
		{in: []string{"oauth2-proxy"}, wantErr: "COMPONENT=none"},
		{in: []string{"oauth2-proxy=nothing"}, wantErr: "cpu"},
		{in: []string{"nginx=none", "nginx=50m"}, wantErr: "nginx given twice"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.in, " "), func(t *testing.T) {
			got, err := lab.ParseLimits(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// fakeCgroups is a fake cgroup filesystem of the given layout holding one
// group per lab component, as the supervisor creates them.
type fakeCgroups struct {
	fs    cgroup.FS
	paths map[string]string // component -> Group.Path()
}

func newFakeCgroups(t *testing.T, v cgroup.Version, components ...string) fakeCgroups {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"proc/" + strconv.Itoa(os.Getpid()) + "/cgroup": "0::/\n"}
	if v == cgroup.V2 {
		files["sys/cgroup.controllers"] = "cpu memory\n"
		files["sys/cgroup.procs"] = "1\n"
	} else {
		files["proc/"+strconv.Itoa(os.Getpid())+"/cgroup"] = "4:memory:/\n2:cpuacct:/\n1:cpu:/\n"
		for _, c := range []string{"cpu", "cpuacct", "memory"} {
			files["sys/"+c+"/cgroup.procs"] = "1\n"
		}
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := fakeCgroups{fs: cgroup.FS{Root: filepath.Join(root, "sys"), Proc: filepath.Join(root, "proc")}, paths: map[string]string{}}
	for _, c := range components {
		g, err := f.fs.Create("authbench/lab-test/" + c)
		if err != nil {
			t.Fatal(err)
		}
		// As a running component's group: a period, no quota, no memory limit.
		if err := g.SetCPULimit(0); err != nil {
			t.Fatal(err)
		}
		if err := g.SetMemoryLimit(0); err != nil {
			t.Fatal(err)
		}
		f.paths[c] = g.Path()
	}
	return f
}

// limits reads back a component's CPU (cores) and memory limits.
func (f fakeCgroups) limits(t *testing.T, component string) (float64, int64) {
	t.Helper()
	g, err := f.fs.Open(f.paths[component])
	if err != nil {
		t.Fatal(err)
	}
	var cpu float64
	var mem int64
	d, _ := g.Dir("cpu")
	md, _ := g.Dir("memory")
	if g.Version() == cgroup.V2 {
		var q, p string
		fmt.Sscan(readFile(t, filepath.Join(d, "cpu.max")), &q, &p)
		if q != "max" {
			qn, _ := strconv.ParseFloat(q, 64)
			pn, _ := strconv.ParseFloat(p, 64)
			cpu = qn / pn
		}
		if m := readFile(t, filepath.Join(md, "memory.max")); m != "max" {
			mem, _ = strconv.ParseInt(m, 10, 64)
		}
		return cpu, mem
	}
	q, _ := strconv.ParseFloat(readFile(t, filepath.Join(d, "cpu.cfs_quota_us")), 64)
	p, _ := strconv.ParseFloat(readFile(t, filepath.Join(d, "cpu.cfs_period_us")), 64)
	if q > 0 {
		cpu = q / p
	}
	if m, _ := strconv.ParseInt(readFile(t, filepath.Join(md, "memory.limit_in_bytes")), 10, 64); m > 0 {
		mem = m
	}
	return cpu, mem
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// runningLab writes a ready lab's state.json whose components live in f's
// groups, and holds the supervisor's lock as a running supervisor would.
func runningLab(t *testing.T, f fakeCgroups) (string, *lab.State) {
	t.Helper()
	dir := t.TempDir()
	s := &lab.State{Dir: dir, Phase: lab.PhaseReady, Supervisor: os.Getpid(), Started: time.Now(), Cgroups: "v1",
		Components: []lab.ComponentInfo{
			{Name: stacks.OAuth2Proxy, Program: "oauth2-proxy", Stack: stacks.Stack3x, Cgroup: f.paths[stacks.OAuth2Proxy], Status: lab.StatusRunning},
			{Name: stacks.Echo2x, Program: "http-echo", Stack: stacks.Stack2x, Cgroup: f.paths[stacks.Echo2x], Status: lab.StatusRunning},
			{Name: stacks.Echo3x, Program: "http-echo", Stack: stacks.Stack3x, Cgroup: f.paths[stacks.Echo3x], Status: lab.StatusRunning},
			{Name: stacks.Envoy, Program: "envoy", Stack: stacks.Stack3x, Status: lab.StatusRunning}, // no cgroup
		}}
	if err := lab.WriteState(dir, s); err != nil {
		t.Fatal(err)
	}
	lock, err := lock.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	return dir, s
}

func TestSetLimits(t *testing.T) {
	type want struct {
		component string
		recorded  string
		cpu       float64 // cores in the cgroup
		mem       int64
	}
	tests := []struct {
		name  string
		steps [][]string // successive `lab limit` calls
		want  []want
	}{
		{"cpu limit", [][]string{{"oauth2-proxy=50m"}},
			[]want{{stacks.OAuth2Proxy, "50m", 0.05, 0}, {stacks.Echo3x, "", 0, 0}}},
		{"cpu and memory", [][]string{{"oauth2-proxy=500m,256Mi"}},
			[]want{{stacks.OAuth2Proxy, "500m,256Mi", 0.5, 256 << 20}}},
		{"a new value replaces the whole limit", [][]string{{"oauth2-proxy=500m,256Mi"}, {"oauth2-proxy=50m"}},
			[]want{{stacks.OAuth2Proxy, "50m", 0.05, 0}}},
		{"none lifts it", [][]string{{"oauth2-proxy=500m,256Mi"}, {"oauth2-proxy=none"}},
			[]want{{stacks.OAuth2Proxy, "", 0, 0}}},
		{"a program name limits each of its components", [][]string{{"http-echo=200m", "oauth2-proxy=1"}},
			[]want{{stacks.Echo2x, "200m", 0.2, 0}, {stacks.Echo3x, "200m", 0.2, 0}, {stacks.OAuth2Proxy, "1000m", 1, 0}}},
	}
	for _, v := range []cgroup.Version{cgroup.V1, cgroup.V2} {
		for _, tt := range tests {
			t.Run(v.String()+"/"+tt.name, func(t *testing.T) {
				f := newFakeCgroups(t, v, stacks.OAuth2Proxy, stacks.Echo2x, stacks.Echo3x)
				dir, _ := runningLab(t, f)
				for _, args := range tt.steps {
					limits, err := lab.ParseLimits(args)
					if err != nil {
						t.Fatal(err)
					}
					if err := setLimits(dir, limits, f.fs); err != nil {
						t.Fatalf("SetLimits %v: %v", args, err)
					}
				}
				st, err := lab.ReadState(dir)
				if err != nil {
					t.Fatal(err)
				}
				rec := map[string]string{}
				for _, c := range st.Record().Components {
					rec[c.Name] = c.Limit
				}
				for _, w := range tt.want {
					c, _ := st.Component(w.component)
					if c.Limit != w.recorded || rec[w.component] != w.recorded {
						t.Errorf("%s: state limit %q, run.json record %q, want %q", w.component, c.Limit, rec[w.component], w.recorded)
					}
					if cpu, mem := f.limits(t, w.component); cpu != w.cpu || mem != w.mem {
						t.Errorf("%s: cgroup limits %g cores, %d bytes; want %g, %d", w.component, cpu, mem, w.cpu, w.mem)
					}
				}
			})
		}
	}
}

func TestSetLimitsRefuses(t *testing.T) {
	tests := []struct {
		name    string
		limits  []lab.Limit
		prepare func(t *testing.T, dir string, s *lab.State)
		wantErr string
	}{
		{name: "an unknown component, listing the real ones", limits: []lab.Limit{{Component: "nginx", MilliCPU: 50}},
			wantErr: "no such component in the lab in"},
		{name: "a component without a cgroup", limits: []lab.Limit{{Component: stacks.Envoy, MilliCPU: 50}},
			wantErr: "envoy has no cgroup"},
		{name: "a component named twice", limits: []lab.Limit{{Component: "http-echo", MilliCPU: 50}, {Component: stacks.Echo3x, MilliCPU: 60}},
			wantErr: "limits http-echo and http-echo-3x both name http-echo-3x"},
		{name: "no limits", wantErr: "none given"},
		{name: "a lab that is not ready", limits: []lab.Limit{{Component: stacks.OAuth2Proxy, MilliCPU: 50}},
			prepare: func(t *testing.T, dir string, s *lab.State) {
				s.Phase = lab.PhaseStarting
				if err := lab.WriteState(dir, s); err != nil {
					t.Fatal(err)
				}
			}, wantErr: "is starting, not ready"},
		{name: "a lab whose component group is gone", limits: []lab.Limit{{Component: stacks.OAuth2Proxy, MilliCPU: 50}},
			prepare: func(t *testing.T, dir string, s *lab.State) {
				s.Components[0].Cgroup = "/authbench/lab-test/gone"
				if err := lab.WriteState(dir, s); err != nil {
					t.Fatal(err)
				}
			}, wantErr: "limiting oauth2-proxy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeCgroups(t, cgroup.V2, stacks.OAuth2Proxy, stacks.Echo2x, stacks.Echo3x)
			dir, s := runningLab(t, f)
			if tt.prepare != nil {
				tt.prepare(t, dir, s)
			}
			before := readFile(t, filepath.Join(dir, lab.StateFile))
			err := setLimits(dir, tt.limits, f.fs)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if after := readFile(t, filepath.Join(dir, lab.StateFile)); after != before {
				t.Errorf("state.json changed by a refused call:\n%s", after)
			}
			if cpu, _ := f.limits(t, stacks.Echo3x); cpu != 0 {
				t.Errorf("http-echo-3x limited to %g cores by a refused call", cpu)
			}
		})
	}
}

func TestSetLimitsNeedsARunningLab(t *testing.T) {
	f := newFakeCgroups(t, cgroup.V2, stacks.OAuth2Proxy)
	dir := t.TempDir()
	err := setLimits(dir, []lab.Limit{{Component: stacks.OAuth2Proxy, MilliCPU: 50}}, f.fs)
	if !errors.Is(err, lab.ErrNotRunning) {
		t.Errorf("no lab: %v, want lab.ErrNotRunning", err)
	}
	if err := lab.WriteState(dir, &lab.State{Dir: dir, Phase: lab.PhaseReady}); err != nil {
		t.Fatal(err)
	}
	err = setLimits(dir, []lab.Limit{{Component: stacks.OAuth2Proxy, MilliCPU: 50}}, f.fs)
	if !errors.Is(err, lab.ErrNotRunning) || !strings.Contains(err.Error(), "supervisor not running") {
		t.Errorf("a lab whose supervisor is gone: %v, want lab.ErrNotRunning", err)
	}
}

// TestSupervisorKeepsLiveLimits interleaves the supervisor's own writes of
// state.json (a component exiting, say) with SetLimits from another
// writer: neither may undo the other's change.
func TestSupervisorKeepsLiveLimits(t *testing.T) {
	f := newFakeCgroups(t, cgroup.V2, stacks.OAuth2Proxy, stacks.Echo2x, stacks.Echo3x)
	dir, s := runningLab(t, f)
	sup := &supervisor{dir: dir, out: io.Discard, state: s, procs: map[string]*proc.Proc{}}
	const rounds = 40
	var wg sync.WaitGroup
	wg.Add(2)
	errs := make(chan error, rounds)
	go func() {
		defer wg.Done()
		for i := 1; i <= rounds; i++ {
			sup.setComponent(stacks.Echo2x, func(c *lab.ComponentInfo) { c.StartupS = float64(i) })
		}
	}()
	go func() {
		defer wg.Done()
		for i := 1; i <= rounds; i++ {
			errs <- setLimits(dir, []lab.Limit{{Component: stacks.OAuth2Proxy, MilliCPU: int64(10 * i)}}, f.fs)
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The supervisor writes once more after the last SetLimits.
	sup.setComponent(stacks.Echo3x, func(c *lab.ComponentInfo) { c.Status = lab.StatusExited })
	st, err := lab.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := st.Component(stacks.OAuth2Proxy)
	e2, _ := st.Component(stacks.Echo2x)
	e3, _ := st.Component(stacks.Echo3x)
	if want := fmt.Sprintf("%dm", 10*rounds); o.Limit != want {
		t.Errorf("oauth2-proxy limit after the supervisor's writes = %q, want %q", o.Limit, want)
	}
	if e2.StartupS != rounds || e3.Status != lab.StatusExited {
		t.Errorf("the supervisor's own changes were lost: startup %v, status %q", e2.StartupS, e3.Status)
	}
	if cpu, _ := f.limits(t, stacks.OAuth2Proxy); cpu != float64(rounds)/100 {
		t.Errorf("cgroup cpu limit %g, want %g", cpu, float64(rounds)/100)
	}
}
