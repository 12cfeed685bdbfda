package report

import (
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// fxCapacityRun is a capacity search's run: three steps at 100, 200 and
// 400 req/s offered, the last one past the SLO's P99 of 50 ms.
func fxCapacityRun() *results.Run {
	run := fxOpenRun()
	run.Kind, run.Name = results.KindCapacity, "api-capacity"
	run.Plan.SLO = &plan.SLO{P99: plan.Duration(50 * time.Millisecond)}
	run.Plan.Load.Rate, run.Plan.Load.Iterations = 100, 1
	step := func(i int, rate, p99 float64) results.Result {
		r := run.Results[0]
		r.Iteration, r.TargetRPS, r.AchievedRPS, r.ThroughputRPS = i, rate, fxPtr(rate), rate
		r.Latency = fxLatency(2, 5, p99)
		return r
	}
	run.Results = []results.Result{step(1, 100, 9), step(2, 200, 12), step(3, 400, 180)}
	run.SLO = []results.SLOCheck{{Target: "api", Objective: "p99", Limit: 50, Measured: 12, Pass: true}}
	return run
}

// TestSummaryOfCapacityRun: a capacity run's steps read as a curve, each
// with the SLO's verdict, and nothing is averaged across them or made an
// SLA of the worst step; a load run keeps its iterations' means.
func TestSummaryOfCapacityRun(t *testing.T) {
	tests := []struct {
		name          string
		run           *results.Run
		want, wantNot []string
	}{
		{"capacity run", fxCapacityRun(),
			[]string{"**Search:** 3 steps offered from 100.0 req/s to 400.0 req/s", "the SLO p99<50ms", "### Search Steps",
				"| 2 | 200.0 req/s |", "✅ met", "| 3 | 400.0 req/s | 2.00 ms | 5.00 ms | 180 ms | 400.0 req/s |", "| ❌ missed |",
				"| Step | Target Rate |", "At the capacity found"},
			[]string{"Mean of per-iteration", "Performance Stability", "SLA Targets", "Iterations:**", "Rate:**"}},
		{"load run", fxOpenRun(), []string{"Mean of per-iteration", "SLA Targets", "| Iteration | Target Rate |"},
			[]string{"Search Steps", "**Search:**"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := Summary(&b, tt.run, analyze.Summarize(tt.run)); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("summary lacks %q", w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(b.String(), w) {
					t.Errorf("summary has %q", w)
				}
			}
			if t.Failed() {
				t.Logf("summary:\n%s", b.String())
			}
		})
	}
}
