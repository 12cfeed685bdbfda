//go:build integration

package pods_test

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/kube/pods"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
)

// env is the shared lab: one cluster, authbench's image in it, and an
// http-echo on 127.0.0.1 run by the test.
type env struct {
	bin    string
	c      *cluster.Cluster
	api    *deploy.Client
	ref    string
	target string
}

func setup(t *testing.T) *env {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (the kube lab's namespaces, mounts, cgroups)")
	}
	ctx := context.Background()
	dir := t.TempDir()
	bin := filepath.Join(dir, "authbench")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/authbench/authbench/cmd/authbench").CombinedOutput(); err != nil {
		t.Fatalf("building authbench: %v\n%s", err, out)
	}
	var imgs []string
	var ref string
	for _, n := range []string{"pause", "authbench"} {
		img, _, err := image.Build(ctx, n, image.Options{Authbench: bin})
		if err != nil {
			t.Fatalf("building image %s: %v", n, err)
		}
		imgs, ref = append(imgs, img.Path), img.Ref
	}
	c, err := cluster.Up(ctx, cluster.Options{Dir: filepath.Join(dir, "kube"), Images: imgs,
		Supervisor: []string{bin, cluster.SupervisorArg}, Out: testLog{t}})
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	t.Cleanup(func() { c.Down(context.Background()) })
	api, err := kubeapi.FromKubeconfig(c.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	return &env{bin: bin, c: c, api: api, ref: ref, target: startEcho(t)}
}

// startEcho runs http-echo on a free loopback port until the test ends.
func startEcho(t *testing.T) string {
	bin := testenv.NeedTools(t, toolcache.ToolPath, "`make lab` installs it", "http-echo")[0]
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-listen="+addr, "-text=hello")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/"
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("http-echo never listened on %s", addr)
	return ""
}

type testLog struct{ t *testing.T }

func (w testLog) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// syncBuf is a log the test reads while the run writes it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
	t  *testing.T
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t.Log(strings.TrimRight(string(p), "\n"))
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const secretToken = "pods-test-token-5f1c9e0a7d"

func (e *env) plan(name string, l plan.Load) *plan.Plan {
	return &plan.Plan{Name: name, Load: l,
		Targets: []plan.Target{{Name: "echo", URL: e.target, Token: &auth.Spec{Static: true, Literal: secretToken}}}}
}

func (e *env) executor(t *testing.T, log *syncBuf) *pods.Executor {
	return e.executorWith(t, log, pods.Seccomp{})
}

// executorWith is executor with the pods under seccomp profile sc.
func (e *env) executorWith(t *testing.T, log *syncBuf, sc pods.Seccomp) *pods.Executor {
	hostNetwork := true
	x, err := pods.New(pods.Options{PullPolicy: "Never", Log: log, Seccomp: sc, Execution: plan.Execution{
		Pods: 3, Kubeconfig: e.c.Kubeconfig(), Image: e.ref, HostNetwork: &hostNetwork,
		// A BestEffort pod's CPU weight is 2 of a process's 1024: on a busy
		// node it would queue behind everything. Three pods of 300m weigh
		// about as much as the one process they are compared with. The
		// limit (two cores: Go keeps GOMAXPROCS 2, as in that process;
		// never reached here) shows the pods' own CFS counters in the
		// per-pod table.
		CPURequest: "300m", CPULimit: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// run runs p through the executor, watching for leaks meanwhile, and
// checks that nothing of the run is left afterwards.
func (e *env) run(t *testing.T, p *plan.Plan, x *pods.Executor, log *syncBuf, during func()) (*runner.Outcome, error) {
	out := t.TempDir()
	stopWatch := e.watchLeaks(t, x)
	if during != nil {
		go during()
	}
	o, err := runner.Run(context.Background(), runner.Options{Plan: p, Out: out, Log: log, Executor: x, CommandLine: []string{"authbench", "run", "--pods", "3"}})
	stopWatch()
	left, lerr := pods.Remaining(context.Background(), e.api, x.Namespace(), x.ID())
	if lerr != nil || len(left) > 0 {
		t.Errorf("after the run: left %v (%v)", left, lerr)
	}
	searchFiles(t, out, secretToken)
	if strings.Contains(log.String(), secretToken) {
		t.Errorf("the token is in the run's log")
	}
	return o, err
}

// watchLeaks reads the run's Job, pods and ConfigMap and the pods' log
// files every 500 ms while the run goes on; the token must be in none.
func (e *env) watchLeaks(t *testing.T, x *pods.Executor) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			for _, p := range []kubeapi.URLPath{kubeapi.Path("apis", "batch", "v1", "namespaces", "default", "jobs"),
				kubeapi.Path("api", "v1", "namespaces", "default", "pods"), kubeapi.Path("api", "v1", "namespaces", "default", "configmaps")} {
				_, b, _ := e.api.Do(ctx, "GET", p.With("labelSelector", pods.RunLabel+"="+x.ID()), "", nil)
				if bytes.Contains(b, []byte(secretToken)) {
					t.Errorf("the token is in %s", p)
				}
			}
			searchFiles(t, e.c.Dir, secretToken, "etcd", "pki")
			time.Sleep(500 * time.Millisecond)
		}
	}()
	return func() { cancel(); <-done }
}

// searchFiles fails if any regular file under dir (but the skipped
// top-level folders) holds s.
func searchFiles(t *testing.T, dir, s string, skip ...string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		for _, sk := range skip {
			if p == filepath.Join(dir, sk) {
				return filepath.SkipDir
			}
		}
		if d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
				t.Errorf("the token is in %s", p)
			}
		}
		return nil
	})
}

// hlogCount sums the counts of a run's .hlog intervals.
func hlogCount(t *testing.T, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	var n int64
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil || h == nil {
			return n
		}
		n += h.TotalCount()
	}
}
