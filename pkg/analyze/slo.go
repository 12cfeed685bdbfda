package analyze

import (
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// SLO objectives (results.SLOCheck.Objective).
const (
	ObjectiveP50         = "p50"
	ObjectiveP95         = "p95"
	ObjectiveP99         = "p99"
	ObjectiveSuccessRate = "success_rate"
	ObjectiveThroughput  = "throughput"
)

// EvaluateSLO checks the plan's objectives for every target, in the order
// targets appear in rs:
//   - P50, P95 and P99 use the worst iteration: an objective that one
//     iteration misses is missed. (Merging the iterations' histograms would
//     let a good iteration hide a bad one, and needs the .hlog files.)
//   - the success rate is over all requests of all iterations;
//   - throughput is the mean of the iterations' throughputs.
//
// Zero objectives are not checked; with no SLO the result is nil.
func EvaluateSLO(p *plan.Plan, rs []results.Result) []results.SLOCheck {
	if p == nil || p.SLO == nil {
		return nil
	}
	slo := p.SLO
	var out []results.SLOCheck
	names, by := targetResults(rs)
	for _, name := range names {
		trs := by[name]
		latency := []struct {
			obj   string
			limit plan.Duration
			get   func(results.Latency) float64
		}{
			{ObjectiveP50, slo.P50, func(l results.Latency) float64 { return l.P50 }},
			{ObjectiveP95, slo.P95, func(l results.Latency) float64 { return l.P95 }},
			{ObjectiveP99, slo.P99, func(l results.Latency) float64 { return l.P99 }},
		}
		for _, l := range latency {
			if l.limit <= 0 {
				continue
			}
			limit := float64(l.limit.D().Microseconds()) / 1000
			worst := 0.0
			for _, r := range trs {
				worst = max(worst, l.get(r.Latency))
			}
			out = append(out, results.SLOCheck{Target: name, Objective: l.obj, Limit: limit,
				Measured: worst, Unit: "ms", Pass: worst <= limit})
		}
		if slo.SuccessRate > 0 {
			var req, ok int64
			for _, r := range trs {
				req, ok = req+r.Requests, ok+r.Successes
			}
			rate := 0.0
			if req > 0 {
				rate = float64(ok) / float64(req)
			}
			out = append(out, results.SLOCheck{Target: name, Objective: ObjectiveSuccessRate, Limit: slo.SuccessRate,
				Measured: rate, Unit: "ratio", Pass: req > 0 && rate >= slo.SuccessRate})
		}
		if slo.Throughput > 0 {
			thr := avgOf(trs, func(r results.Result) float64 { return r.ThroughputRPS })
			out = append(out, results.SLOCheck{Target: name, Objective: ObjectiveThroughput, Limit: slo.Throughput,
				Measured: thr, Unit: "req/s", Pass: thr >= slo.Throughput})
		}
	}
	return out
}

// SLOFailed reports whether any check failed (authbench run exits 3).
func SLOFailed(checks []results.SLOCheck) bool {
	for _, c := range checks {
		if !c.Pass {
			return true
		}
	}
	return false
}
