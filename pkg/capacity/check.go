package capacity

import (
	"github.com/authbench/authbench/pkg/plan"
)

// Follow is the share of the offered rate a step must achieve: below it,
// the target did not keep up, whatever its latency.
const Follow = 0.95

// Objectives of a step's check (Miss.Objective): the SLO's own names, and
// "achieved" for the rate the target did not keep up with.
const (
	ObjectiveP50         = "p50"
	ObjectiveP95         = "p95"
	ObjectiveP99         = "p99"
	ObjectiveSuccessRate = "success_rate"
	ObjectiveAchieved    = "achieved"
)

// Check tells whether a step met the SLO and kept up with its offered
// rate, and lists what it missed. The SLO's latency maxima and success
// rate are checked per step; its Throughput minimum is not (a low rate
// is not meant to reach it): it is checked against the capacity found
// (Result.ThroughputMet). A step with no completed request fails.
func Check(slo plan.SLO, p Point) []Miss {
	var out []Miss
	for _, l := range []struct {
		obj   string
		limit plan.Duration
		got   float64
	}{{ObjectiveP50, slo.P50, p.P50}, {ObjectiveP95, slo.P95, p.P95}, {ObjectiveP99, slo.P99, p.P99}} {
		limit := float64(l.limit.D().Microseconds()) / 1000
		if l.limit > 0 && l.got > limit {
			out = append(out, Miss{Objective: l.obj, Measured: l.got, Limit: limit})
		}
	}
	if p.Requests == 0 || (slo.SuccessRate > 0 && p.SuccessRate < slo.SuccessRate) {
		out = append(out, Miss{Objective: ObjectiveSuccessRate, Measured: p.SuccessRate, Limit: slo.SuccessRate})
	}
	if p.Achieved < Follow*p.Offered {
		out = append(out, Miss{Objective: ObjectiveAchieved, Measured: p.Achieved, Limit: Follow * p.Offered})
	}
	return out
}
