//go:build integration

package runner_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
)

// TestHostContentionSeesNeighbours: processes the run does not sample (a
// shell loop per CPU, as a neighbour's build would be) keep the host busy
// while authbench loads a cheap server. The finding names them from
// /proc/stat, where the component samplers see nothing.
func TestHostContentionSeesNeighbours(t *testing.T) {
	for range runtime.NumCPU() {
		burn := exec.Command("sh", "-c", "while :; do :; done")
		burn.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := burn.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-burn.Process.Pid, syscall.SIGKILL); burn.Wait() })
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	p := &plan.Plan{Name: "neighbours", Targets: []plan.Target{{Name: "cheap", URL: srv.URL}},
		Load: plan.Load{Requests: 4000, Concurrency: 2, Iterations: 1}}
	out, err := runner.Run(context.Background(), runner.Options{Plan: p, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h := out.Run.Results[0].Host
	if h == nil || h.CPUs != runtime.NumCPU() || h.Share() < analyze.HostContention {
		t.Fatalf("run.json's host reading with a loop on every CPU: %+v, want %d CPUs at least %.0f%% busy",
			h, runtime.NumCPU(), analyze.HostContention*100)
	}
	for _, f := range out.Run.Findings {
		if f.Kind == analyze.KindHostContention {
			t.Logf("finding: %s", f.Evidence)
			if !strings.Contains(f.Evidence, "processes not sampled") || f.Values["others_cpu_cores"] <= 0 {
				t.Errorf("the finding does not name the neighbours: %s %v", f.Evidence, f.Values)
			}
			return
		}
	}
	t.Errorf("no host-contention finding with a loop on every CPU (host %+v); findings: %+v", h, out.Run.Findings)
}
