//go:build integration

package pods_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/kube/pods"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// TestPodsPrometheus: on a kube lab (stack 2x), run --pods 2 against the
// lab's hostNetwork entry point with the lab's Prometheus in the scenario
// reads the generator pods' CPU, memory, quota and throttling from the
// real kubelet's cAdvisor, and reuses the authbench image lab up imported.
// Then the same Prometheus behind a real nginx with the lab's certificate
// and a bearer-token check, as OpenShift's Thanos querier: queries work
// with the token and the CA, and fail clearly without either.
func TestPodsPrometheus(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the kube lab's namespaces, mounts, cgroups)")
	}
	tmp, err := os.MkdirTemp("", "pods-prom-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	bin := filepath.Join(tmp, "authbench")
	if out, err := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/authbench/authbench/cmd/authbench").CombinedOutput(); err != nil {
		t.Fatalf("building authbench: %v\n%s", err, out)
	}
	dir := t.TempDir()
	t.Cleanup(func() { exec.Command(bin, "lab", "down", "--lab-dir", dir).Run() })
	start := time.Now()
	labUp(t, bin, dir)
	t.Logf("lab up --platform kube --stack 2x: %.1fs", time.Since(start).Seconds())
	var st lab.State
	if b, err := os.ReadFile(filepath.Join(dir, lab.StateFile)); err != nil || json.Unmarshal(b, &st) != nil || st.Prometheus == nil {
		t.Fatalf("the kube lab's state has no Prometheus: %v", err)
	}

	run, stderr := runPodsOnLab(t, bin, dir)
	if strings.Contains(stderr, "importing") {
		t.Errorf("run --pods rebuilt and imported the image lab up had imported:\n%s", stderr)
	}
	gens := checkGenerators(t, run)

	checkTLSPrometheus(t, st, run, gens)
}

// labUp brings the kube lab up in dir. On failure it logs the tail of
// every log the lab wrote (kubelet, containerd, pods), which the test's
// temporary directory would take with it, and tries once more: once in
// CI a Deployment was not available after 3 minutes and nothing said why.
// This test is about reading pods through Prometheus; TestKubeLab holds
// lab up to its word.
func labUp(t *testing.T, bin, dir string) {
	t.Helper()
	var err error
	var errb bytes.Buffer
	for attempt := 1; attempt <= 2; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		errb.Reset()
		cmd := exec.CommandContext(ctx, bin, "lab", "up", "--platform", "kube", "--stack", "2x", "--lab-dir", dir)
		cmd.Stderr = &errb
		err = cmd.Run()
		cancel()
		if err == nil {
			return
		}
		t.Logf("lab up, attempt %d: %v\nstderr:\n%s", attempt, err, errb.String())
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".log") {
				t.Logf("%s, last lines:\n%s", p, tail(p, 25))
			}
			return nil
		})
		exec.Command(bin, "lab", "down", "--lab-dir", dir).Run()
	}
	t.Fatalf("authbench lab up --platform kube --stack 2x failed twice: %v", err)
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// cli runs authbench and returns its stdout and stderr, failing on an error.
func cli(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("authbench %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// runPodsOnLab runs the lab's scenario, its 2x target only, from 2 pods
// limited to 50m each (so that cAdvisor has a quota and throttling to
// report), and returns its run.json and its log.
func runPodsOnLab(t *testing.T, bin, dir string) (*results.Run, string) {
	t.Helper()
	scen, _ := cli(t, bin, "lab", "scenario", "--lab-dir", dir)
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(scen), &doc); err != nil {
		t.Fatal(err)
	}
	var keep []any
	for _, tg := range doc["targets"].([]any) {
		if tg.(map[string]any)["name"] == stacks.Target2x {
			keep = append(keep, tg)
		}
	}
	doc["targets"] = keep
	doc["execution"] = map[string]any{"pods": 2, "cpu_request": "50m", "cpu_limit": "50m"}
	b, _ := yaml.Marshal(doc)
	path := filepath.Join(dir, "scenario-pods.yaml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "runs")
	start := time.Now()
	_, stderr := cli(t, bin, "run", "-f", path, "--lab-dir", dir, "-z", "6s", "-c", "4", "--iterations", "1", "--out", out)
	t.Logf("run --pods 2: %.1fs", time.Since(start).Seconds())
	m, _ := filepath.Glob(filepath.Join(out, "*", "run.json"))
	if len(m) != 1 {
		t.Fatalf("run.json: %v\n%s", m, stderr)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	var r results.Run
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r, stderr
}

// checkGenerators wants both generator pods sampled through Prometheus
// with cAdvisor's CPU, memory, their 200m quota and CFS periods, and
// returns them as observe components.
func checkGenerators(t *testing.T, r *results.Run) []plan.Component {
	t.Helper()
	if len(r.Results) != 1 || r.Results[0].Pods == nil || r.Results[0].Pods.Completed != 2 {
		t.Fatalf("want one result from 2 completed pods, got %+v", r.Results)
	}
	res := r.Results[0]
	var gens []plan.Component
	var throttled int64
	for _, u := range res.Components {
		if u.Role != pods.RoleGenerator || u.Name == "authbench" {
			continue // authbench itself, the coordinator here, sampled locally
		}
		t.Logf("%s (%s): cpu mean %.3f cores, mem mean %.0f B, limit %v cores, %d of %d periods throttled",
			u.Name, u.Source, u.CPUMean, u.MemMean, u.CPULimit, u.ThrottledPeriods, u.Periods)
		throttled += u.ThrottledPeriods
		if u.Source != observe.SourcePrometheus || u.CPUMean <= 0 || u.MemMean <= 0 || u.CPULimit != 0.05 || u.Periods == 0 {
			t.Errorf("generator %s from cAdvisor: source %s, cpu %v, mem %v, limit %v, periods %d; want prometheus, CPU, memory, 0.05 cores, periods",
				u.Name, u.Source, u.CPUMean, u.MemMean, u.CPULimit, u.Periods)
		}
		gens = append(gens, plan.Component{Name: u.Name, Namespace: "default", Pod: u.Name + "-.*", Container: "agent"})
	}
	if throttled == 0 {
		t.Error("cAdvisor counted no throttled period of either 50m generator pod")
	}
	if len(gens) != 2 {
		t.Fatalf("want 2 generator pods among the sampled components, got %d: %+v", len(gens), res.Components)
	}
	for _, p := range res.Pods.Pods {
		if !strings.HasPrefix(p.Name, gens[p.Index].Name+"-") {
			t.Errorf("pod %d is %s, not matched by component %s", p.Index, p.Name, gens[p.Index].Name)
		}
	}
	return gens
}

// checkTLSPrometheus puts nginx, serving the lab's certificate and
// checking a bearer token, in front of the lab's Prometheus, and queries
// the generators' window through it.
func checkTLSPrometheus(t *testing.T, st lab.State, r *results.Run, gens []plan.Component) {
	t.Helper()
	tok := make([]byte, 16)
	rand.Read(tok)
	token := hex.EncodeToString(tok)
	url := startTokenNginx(t, st.Dir, token, st.Prometheus.URL)
	tokFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokFile, []byte(token+"\n"), 0o600)
	res := r.Results[0]
	for _, tc := range []struct {
		name    string
		p       plan.Prometheus
		wantErr string
	}{
		{"token and CA", plan.Prometheus{URL: url, CACert: st.CACert, Token: &auth.Spec{File: tokFile}}, ""},
		{"no token", plan.Prometheus{URL: url, CACert: st.CACert}, "HTTP 401: it needs a bearer token"},
		{"no CA", plan.Prometheus{URL: url, Token: &auth.Spec{File: tokFile}}, "certificate signed by unknown authority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := observe.NewPrometheusFromPlan(ctx, &tc.p, gens)
			if err != nil {
				t.Fatal(err)
			}
			pts, err := s.QueryRange(ctx, res.Start, res.End)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), token) {
					t.Errorf("the error holds the token")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, ps := range pts {
				if cpu := cpuSpent(ps); cpu <= 0 {
					t.Errorf("%s through nginx: %d points, CPU %v s; want CPU", gens[i].Name, len(ps), cpu)
				} else {
					t.Logf("%s through nginx: %.3f CPU-seconds over %d points", gens[i].Name, cpu, len(ps))
				}
			}
		})
	}
}

// cpuSpent is the CPU-seconds counter's rise over the points.
func cpuSpent(ps []observe.Point) float64 {
	var lo, hi float64 = -1, -1
	for _, p := range ps {
		if p.CPUSeconds != p.CPUSeconds { // NaN: unknown
			continue
		}
		if lo < 0 {
			lo = p.CPUSeconds
		}
		hi = p.CPUSeconds
	}
	return hi - lo
}

// startTokenNginx runs nginx with the lab's server certificate on a free
// loopback port, passing to upstream only requests with the bearer token.
func startTokenNginx(t *testing.T, labDir, token, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		t.Fatalf("finding nginx (the lab's apt step installs it): %v", err)
	}
	dir, err := os.MkdirTemp("", "authbench-nginx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	certs := filepath.Join(labDir, "certs")
	conf := fmt.Sprintf(tokenNginxConf, dir, port, filepath.Join(certs, "server.crt"), filepath.Join(certs, "server.key"),
		token, strings.TrimSuffix(upstream, "/"))
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-e", filepath.Join(dir, "error.log"), "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited:\n%s", log)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "https://" + addr
		}
	}
	t.Fatalf("nginx never listened on %s", addr)
	return ""
}

// The config holds the token; it lives in a 0600 file of the test's
// temporary directory, removed at the end.
const tokenNginxConf = `daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  server {
    listen 127.0.0.1:%[2]d ssl;
    ssl_certificate %[3]s;
    ssl_certificate_key %[4]s;
    location / {
      if ($http_authorization != "Bearer %[5]s") { return 401; }
      proxy_pass %[6]s;
    }
  }
}
`
