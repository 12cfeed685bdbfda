package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/capacity/captest"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// TestCapacityCommand runs a short search against a server of known
// capacity (4 workers × 10 ms = 400 req/s) and checks what the command
// writes: the search on stdout (text or JSON), and a run directory marked
// as a capacity run with one result per step. The search's accuracy is
// pkg/capacity's integration test; this one has a budget of seconds.
func TestCapacityCommand(t *testing.T) {
	t.Parallel()
	srv := captest.New(4, 10*time.Millisecond)
	t.Cleanup(srv.Close)
	for _, output := range []string{"text", "json"} {
		t.Run(output, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "runs")
			r := mustRun(t, ExitOK, "capacity", srv.URL+"/", "--slo", "p99<1s,success_rate>=99%",
				"--min", "100", "--budget", "10s", "-z", "2s", "-c", "32", "--out", out, "-o", output)
			var searches []*capacity.Result
			if output == "json" {
				if err := json.Unmarshal([]byte(r.stdout), &searches); err != nil {
					t.Fatalf("-o json: stdout is not the searches' JSON: %v\n%s", err, r.stdout)
				}
			} else {
				for _, w := range []string{"capacity", "under p99<1s,success_rate>=99%", "step", "ramp", "Results: "} {
					if !strings.Contains(r.stdout, w) {
						t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
					}
				}
			}
			dir := runDir(t, out)
			run, _ := readRun(t, dir)
			if run.Kind != results.KindCapacity {
				t.Errorf("run kind %q, want %q", run.Kind, results.KindCapacity)
			}
			var saved []*capacity.Result
			b, err := os.ReadFile(filepath.Join(dir, capacity.File))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &saved); err != nil {
				t.Fatalf("%s: %v", capacity.File, err)
			}
			if output == "json" && (len(searches) != 1 || len(saved) != 1 || searches[0].Capacity != saved[0].Capacity) {
				t.Errorf("stdout's searches %+v differ from %s's", searches, capacity.File)
			}
			checkCapacityRun(t, run, saved)
		})
	}
}

// checkCapacityRun: the run's results are the search's steps, in order.
func checkCapacityRun(t *testing.T, run *results.Run, searches []*capacity.Result) {
	t.Helper()
	if len(searches) != 1 {
		t.Fatalf("%d searches, want 1", len(searches))
	}
	s := searches[0]
	if s.Capacity <= 0 || len(s.Steps) < 2 {
		t.Fatalf("search found %g req/s in %d steps (stop %s)", s.Capacity, len(s.Steps), s.Stop)
	}
	if len(run.Results) != len(s.Steps) {
		t.Fatalf("%d results for %d steps", len(run.Results), len(s.Steps))
	}
	for i, st := range s.Steps {
		res := run.Results[i]
		if res.Iteration != st.N || res.TargetRPS != st.Offered || res.Model != plan.Open {
			t.Errorf("result %d (iteration %d, %g req/s, %s) is not step %d at %g req/s",
				i, res.Iteration, res.TargetRPS, res.Model, st.N, st.Offered)
		}
	}
}

// TestCapacityBadInput: mistakes are exit 1 with a message naming them,
// before any load.
func TestCapacityBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no slo", []string{"http://127.0.0.1:1/"}, "capacity needs an SLO"},
		{"bad objective", []string{"--slo", "p99>100ms", "http://127.0.0.1:1/"}, `p99 takes <`},
		{"unknown objective", []string{"--slo", "p42<1s", "http://127.0.0.1:1/"}, `slo "p42<1s"`},
		{"percentage over 100", []string{"--slo", "success_rate>=120%", "http://127.0.0.1:1/"}, "success_rate (--slo): must be a fraction in (0, 1]"},
		{"rate is searched", []string{"--slo", "p99<1s", "-q", "100", "http://127.0.0.1:1/"}, "unknown shorthand flag: 'q'"},
		{"max below min", []string{"--slo", "p99<1s", "--min", "100", "--max", "50", "http://127.0.0.1:1/"}, "below the minimum rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "runs")
			r := mustRun(t, ExitError, append([]string{"capacity", "--out", out}, tt.args...)...)
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("bad input left a runs directory %s", out)
			}
		})
	}
}
