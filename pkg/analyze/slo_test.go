package analyze

import (
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

func TestEvaluateSLO(t *testing.T) {
	// The migration reports' 3.x SLA: P95 < 200ms, P50 < 100ms, 600+ req/s per
	// replica.
	sla := &plan.SLO{P50: plan.Duration(100 * time.Millisecond), P95: plan.Duration(200 * time.Millisecond),
		SuccessRate: 0.999, Throughput: 600}
	tests := []struct {
		name string
		run  *results.Run
		want map[string]bool // objective -> pass
		meas map[string]float64
	}{
		{"2.x meets it", diag2x(),
			map[string]bool{"p50": true, "p95": true, "success_rate": true, "throughput": true},
			map[string]float64{"p95": 55.9, "success_rate": 1}},
		{"3.x under 50m misses latency and throughput", diag3xThrottled(),
			map[string]bool{"p50": false, "p95": false, "success_rate": true, "throughput": false},
			map[string]float64{"p95": 3160, "success_rate": 0.9996}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checks := EvaluateSLO(&plan.Plan{SLO: sla}, tt.run.Results)
			if len(checks) != len(tt.want) {
				t.Fatalf("got %d checks, want %d: %+v", len(checks), len(tt.want), checks)
			}
			for _, c := range checks {
				if c.Target != "gateway" || c.Pass != tt.want[c.Objective] {
					t.Errorf("%s: pass %v (measured %v, limit %v), want %v", c.Objective, c.Pass, c.Measured, c.Limit, tt.want[c.Objective])
				}
				if m, ok := tt.meas[c.Objective]; ok && c.Measured != m {
					t.Errorf("%s measured %v, want %v (worst iteration / all requests)", c.Objective, c.Measured, m)
				}
			}
			if SLOFailed(checks) == allPass(tt.want) {
				t.Errorf("SLOFailed = %v", SLOFailed(checks))
			}
		})
	}
	if got := EvaluateSLO(&plan.Plan{}, diag2x().Results); got != nil {
		t.Errorf("no SLO: got %v", got)
	}
}

func allPass(m map[string]bool) bool {
	for _, v := range m {
		if !v {
			return false
		}
	}
	return true
}

func TestEvaluateSLOUnitsAndLimits(t *testing.T) {
	p := &plan.Plan{SLO: &plan.SLO{P99: plan.Duration(1500 * time.Microsecond)}}
	checks := EvaluateSLO(p, []results.Result{{Target: "a", Latency: results.Latency{P99: 1.5}}})
	if len(checks) != 1 || checks[0].Limit != 1.5 || checks[0].Unit != "ms" || !checks[0].Pass {
		t.Fatalf("checks = %+v", checks)
	}
}
