package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// TestRunSLO checks the exit codes of a scenario's SLO: 3 when an
// objective fails (with the failing check in run.json and the SLO section
// in summary.md), 0 when all pass.
func TestRunSLO(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		slo    string
		code   int
		checks int      // one per objective given
		failed []string // objectives that must fail; the others must pass
	}{
		{"impossible latency", "{p50: 1ns}", ExitSLOFailed, 1, []string{"p50"}},
		{"all requests must succeed", `{success_rate: "100%", p99: 10s}`, ExitSLOFailed, 2, []string{"success_rate"}},
		{"met", `{p50: 5s, p95: 8s, p99: 10s, success_rate: "50%", throughput: 1}`, ExitOK, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Every 10th request (the probe first) fails with a 500.
			var srv *counted
			srv = newCounted(t, func(w http.ResponseWriter, r *http.Request) {
				if srv.n.Load()%10 == 1 {
					http.Error(w, "boom", http.StatusInternalServerError)
					return
				}
				_, _ = w.Write([]byte("ok\n"))
			})
			dir := t.TempDir()
			file := writeFile(t, dir, "slo.yaml", fmt.Sprintf(`name: slo
targets:
  - name: api
    url: %s/
load: {requests: 50, concurrency: 2}
slo: %s
`, srv.URL, tc.slo))
			out := filepath.Join(dir, "runs")
			r := mustRun(t, tc.code, "run", "-f", file, "--out", out)
			if !strings.Contains(r.stdout, "Summary:") {
				t.Errorf("exit %d but no report on stdout: the run completed and must say so", r.code)
			}
			rd := runDir(t, out)
			run, _ := readRun(t, rd)
			if run.Results[0].Status["500"] == 0 {
				t.Fatalf("the server answered no 500: status %v", run.Results[0].Status)
			}
			if len(run.SLO) != tc.checks {
				t.Errorf("%d SLO checks in run.json, want %d: %+v", len(run.SLO), tc.checks, run.SLO)
			}
			checkSLO(t, run.SLO, tc.failed)
			md, err := os.ReadFile(filepath.Join(rd, results.SummaryFile))
			if err != nil || !strings.Contains(string(md), "SLO Results") {
				t.Errorf("summary.md has no SLO Results section (%v)", err)
			}
		})
	}
}

// checkSLO requires one check per objective, failing exactly those named.
func checkSLO(t *testing.T, checks []results.SLOCheck, failed []string) {
	t.Helper()
	if len(checks) == 0 {
		t.Fatal("run.json has no SLO checks")
	}
	want := map[string]bool{}
	for _, f := range failed {
		want[f] = true
	}
	for _, c := range checks {
		if c.Target != "api" {
			t.Errorf("check %+v: target %q, want api", c, c.Target)
		}
		if c.Pass == want[c.Objective] {
			t.Errorf("check %s: pass %v (limit %g %s, measured %g)", c.Objective, c.Pass, c.Limit, c.Unit, c.Measured)
		}
		delete(want, c.Objective)
	}
	if len(want) > 0 {
		t.Errorf("no check for %v in %+v", want, checks)
	}
}
