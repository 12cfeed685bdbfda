package capacity

import (
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

func TestPointFrom(t *testing.T) {
	i64 := func(n int64) *int64 { return &n }
	f64 := func(x float64) *float64 { return &x }
	base := results.Result{Model: plan.Open, TargetRPS: 800, Requests: 1600, Successes: 1598, SuccessRate: 1598.0 / 1600,
		ThroughputRPS: 790, Latency: results.Latency{P50: 5, P95: 7, P99: 9},
		Components: []results.ComponentUsage{{Name: "proxy", Role: "auth-proxy", Source: "local", CPUMean: 0.4, CPULimit: 0.5, ThrottledRatio: 0.1}}}
	tests := []struct {
		name     string
		edit     func(*results.Result)
		achieved float64
	}{
		// A late last send lowers the engine's AchievedRPS; it is not a
		// request left unsent, so the target kept up.
		{"kept the schedule", func(r *results.Result) { r.AchievedRPS = f64(760) }, 800},
		{"a quarter unsent", func(r *results.Result) { r.Requests, r.Unsent = 1200, i64(400) }, 600},
		{"closed loop: its throughput", func(r *results.Result) { r.Model, r.TargetRPS = plan.Closed, 0 }, 790},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.edit(&r)
			p := PointFrom(r)
			if p.Achieved != tt.achieved {
				t.Errorf("achieved %g, want %g", p.Achieved, tt.achieved)
			}
			if p.Offered != r.TargetRPS || p.P99 != 9 || p.P95 != 7 || p.P50 != 5 || p.Throughput != 790 ||
				p.SuccessRate != r.SuccessRate || p.Requests != r.Requests {
				t.Errorf("point %+v does not carry the result's figures", p)
			}
			if len(p.Components) != 1 || p.Components[0] != (Component{Name: "proxy", Role: "auth-proxy", Source: "local",
				CPU: 0.4, Limit: 0.5, Throttled: 0.1}) {
				t.Errorf("components %+v", p.Components)
			}
		})
	}
}
