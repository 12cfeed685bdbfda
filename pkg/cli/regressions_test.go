package cli

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// writeHistory writes n runs of one target whose P95 steps by step at run
// at (and whose concurrency changes at concAt, if > 0).
func writeHistory(t *testing.T, n, at int, step float64, concAt int) string {
	t.Helper()
	runs := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	day := time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)
	for i := range n {
		p95 := 40 * (1 + 0.02*rng.NormFloat64())
		if i >= at {
			p95 *= step
		}
		start := day.Add(time.Duration(i) * 24 * time.Hour)
		dir, err := store.NewRunDir(runs, "nightly", start)
		if err != nil {
			t.Fatal(err)
		}
		run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "nightly", ID: "run" + start.Format("0102"), Start: start}
		run.Plan.Load.Concurrency = 10
		if concAt > 0 && i >= concAt {
			run.Plan.Load.Concurrency = 50
		}
		run.Environment.Targets = []results.TargetFingerprint{{Target: "api", Server: "nginx", BodySHA256: "ab"}}
		run.Results = []results.Result{{Target: "api", Iteration: 1, Model: "closed", Requests: 1000, Successes: 1000,
			SuccessRate: 1, ThroughputRPS: 500, Latency: results.Latency{P50: p95 / 2, P95: p95, P99: p95 * 1.5, Mean: p95 / 2}}}
		if err := store.Write(dir, run); err != nil {
			t.Fatal(err)
		}
	}
	return runs
}

func TestRegressionsCommand(t *testing.T) {
	tests := []struct {
		name       string
		step       float64
		concAt     int
		args       []string
		code       int
		wantInText []string
	}{
		{"p95 regression fails CI", 1.2, 0, []string{"--fail-on-regression"}, ExitRegression, []string{"REGRESSION", "2026-10-11", "+2"}},
		{"regression without the flag exits 0", 1.2, 0, nil, ExitOK, []string{"REGRESSION"}},
		{"improvement passes CI", 0.7, 0, []string{"--fail-on-regression"}, ExitOK, []string{"IMPROVEMENT"}},
		{"concurrency change splits", 1.5, 10, []string{"--fail-on-regression"}, ExitOK, []string{"history split", "Different concurrency"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := writeHistory(t, 20, 10, tt.step, tt.concAt)
			args := append([]string{"regressions", "--out", runs, "--metric", "p95"}, tt.args...)
			r := mustRun(t, tt.code, args...)
			for _, w := range tt.wantInText {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

func TestRegressionsJSON(t *testing.T) {
	runs := writeHistory(t, 20, 10, 1.2, 0)
	r := mustRun(t, ExitOK, "regressions", "--out", runs, "--metric", "p95,throughput", "-o", "json")
	var out struct {
		ChangePoints []struct {
			RunID          string  `json:"run_id"`
			RunName        string  `json:"run_name"`
			Metric         string  `json:"metric"`
			Before         float64 `json:"before"`
			After          float64 `json:"after"`
			RelativeChange float64 `json:"relative_change"`
			Significance   float64 `json:"significance"`
			Direction      string  `json:"direction"`
		} `json:"change_points"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(out.ChangePoints) != 1 {
		t.Fatalf("change points %+v, want the p95 step only", out.ChangePoints)
	}
	c := out.ChangePoints[0]
	if c.RunID != "run1011" || c.Metric != "p95" || c.Direction != "regression" || c.RelativeChange < 0.1 || c.Significance < 0.95 {
		t.Errorf("change point %+v", c)
	}
}

func TestRegressionsBadInput(t *testing.T) {
	runs := writeHistory(t, 3, 10, 1, 0)
	for _, args := range [][]string{
		{"--metric", "p90"}, {"--since", "yesterday"}, {"--source", "s3"}, {"-o", "yaml"},
		{"--source", "opensearch", "--opensearch", "ftp://x"},
	} {
		r := mustRun(t, ExitError, append([]string{"regressions", "--out", runs}, args...)...)
		if r.stderr == "" {
			t.Errorf("%v: no message", args)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-10-01":           time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
		"30d":                  now.Add(-30 * 24 * time.Hour),
		"72h":                  now.Add(-72 * time.Hour),
		"2026-10-01T10:00:00Z": time.Date(2026, 10, 1, 10, 0, 0, 0, time.UTC),
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
}
