package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// writeCapacityRun writes a capacity run of target api whose search found
// capRPS (steps at capRPS/2, capRPS, 2*capRPS, the last failing).
func writeCapacityRun(t *testing.T, runs string, start time.Time, capRPS float64, slo plan.SLO) string {
	t.Helper()
	dir, err := store.NewRunDir(runs, "cap", start)
	if err != nil {
		t.Fatal(err)
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "cap", ID: "cap" + start.Format("0102"), Start: start, Kind: results.KindCapacity}
	run.Plan.Load.Concurrency, run.Plan.Load.Rate = 10, capRPS/2
	search := &capacity.Result{Target: "api", SLO: slo, Capacity: capRPS, FirstFail: 2 * capRPS, Sustained: capRPS * 0.97, Stop: "precision",
		Spread: &capacity.Spread{N: 1, Passed: 1, P99Max: 40}}
	for i, rate := range []float64{capRPS / 2, capRPS, 2 * capRPS} {
		p99 := 20 * float64(i+1)
		pt := capacity.Point{Offered: rate, Throughput: rate, P99: p99, SuccessRate: 1, Requests: 100}
		search.Steps = append(search.Steps, capacity.Step{N: i + 1, CapacityPoint: pt, Pass: i < 2})
		search.Curve = append(search.Curve, pt)
		run.Results = append(run.Results, results.Result{Target: "api", Iteration: i + 1, Model: plan.Open, TargetRPS: rate,
			Requests: 100, Successes: 100, SuccessRate: 1, ThroughputRPS: rate, Latency: results.Latency{P50: p99 / 2, P95: p99 * 0.9, P99: p99}})
	}
	if err := store.WriteJSON(filepath.Join(dir, capacity.File), []*capacity.Result{search}); err != nil {
		t.Fatal(err)
	}
	if err := store.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCapacityRunsInCompareAndHistory(t *testing.T) {
	runs := writeHistory(t, 3, 10, 1, 0)
	slo := plan.SLO{P99: plan.Duration(100 * time.Millisecond)}
	day := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	a := writeCapacityRun(t, runs, day, 800, slo)
	b := writeCapacityRun(t, runs, day.Add(24*time.Hour), 600, slo)
	load, err := filepath.Glob(filepath.Join(runs, "*nightly*"))
	if err != nil || len(load) == 0 {
		t.Fatalf("no load run: %v", err)
	}
	tests := []struct {
		name       string
		args       []string
		code       int
		wantOut    []string
		wantStderr string
	}{
		{"capacity with load is refused", []string{"compare", a, load[0]}, ExitError, nil, "capacity search and"},
		{"two capacity runs by capacity and curve", []string{"compare", a, b}, ExitOK,
			[]string{"Capacity of api", "800.0 req/s", "600.0 req/s", "−25.0%", "P99 by offered rate"}, ""},
		{"capacity comparison as html", []string{"compare", a, b, "-o", "html"}, ExitOK, []string{"<html", "P99 against offered load"}, ""},
		{"history lists capacity searches apart", []string{"history", "--out", runs}, ExitOK,
			[]string{"History of api (3 runs)", "History of api (capacity) (2 runs)", "capacity found"}, ""},
		{"history as json", []string{"history", "--out", runs, "-o", "json"}, ExitOK,
			[]string{`"runs": [`, `"target": "api"`, `"kind": "capacity"`, `"run_name": "nightly"`}, ""},
		{"regressions follow the capacity", []string{"regressions", "--out", runs, "--metric", "throughput", "-o", "json"}, ExitOK,
			[]string{`"change_points": []`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, tt.code, tt.args...)
			for _, w := range tt.wantOut {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%.3000s", w, r.stdout)
				}
			}
			if !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.wantStderr)
			}
		})
	}
}
