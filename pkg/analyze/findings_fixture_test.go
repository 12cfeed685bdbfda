package analyze

import (
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// The fixtures below use the figures of migration reports 001 and 003:
// 3.x with kube-auth-proxy under a 50m limit, 29 req/s at 50 workers and
// 20 × 403 in 50,000 requests; 2.x at 1,032 req/s with oauth-proxy at 3%.

var diagT0 = time.Date(2025, 11, 17, 10, 0, 0, 0, time.UTC)

type diagIter struct {
	rps, mean, p95, min float64
	ok, s403, s401      int64
	errors              map[string]int64
	comps               []results.ComponentUsage
}

func diagFixture(model plan.Model, workers int, its ...diagIter) *results.Run {
	run := &results.Run{Plan: plan.Plan{Load: plan.Load{Concurrency: workers}},
		Environment: results.Environment{CPUs: 8}}
	if model == plan.Open {
		run.Plan.Load.Rate = its[0].rps
	}
	for i, it := range its {
		req := it.ok + it.s403 + it.s401
		for _, n := range it.errors {
			req += n
		}
		r := results.Result{Target: "gateway", Iteration: i + 1, Model: model, Requests: req, Successes: it.ok,
			SuccessRate: float64(it.ok) / float64(req), ThroughputRPS: it.rps, DurationS: float64(req) / it.rps,
			Latency: results.Latency{Min: it.min, Mean: it.mean, P50: it.mean * 0.95, P95: it.p95, P99: it.p95 * 1.2},
			Status:  map[string]int64{"200": it.ok}, Errors: it.errors, Components: it.comps}
		r.Start = diagT0.Add(time.Duration(i) * time.Minute)
		r.End = r.Start.Add(time.Duration(r.DurationS * float64(time.Second)))
		if it.s403 > 0 {
			r.Status["403"] = it.s403
		}
		if it.s401 > 0 {
			r.Status["401"] = it.s401
		}
		run.Results = append(run.Results, r)
	}
	return run
}

// throttledProxy is kube-auth-proxy under 50m: 3% average CPU, a peak at
// the limit, and 80% of its periods throttled.
func diagProxy() results.ComponentUsage {
	return results.ComponentUsage{Name: "kube-auth-proxy", Role: "auth-proxy", Source: "local",
		CPUMean: 0.03, CPUPeak: 0.0499, CPULimit: 0.05, Periods: 3450, ThrottledPeriods: 2760,
		ThrottledRatio: 0.8, ThrottledSeconds: 170, CPUSecondsPer1k: 1.03}
}

func diagComp(name, role string, mean, peak float64) results.ComponentUsage {
	return results.ComponentUsage{Name: name, Role: role, Source: "local", CPUMean: mean, CPUPeak: peak,
		CPUSecondsPer1k: mean / 29 * 1000}
}

func diag3xThrottled() *results.Run {
	comps := []results.ComponentUsage{diagProxy(), diagComp("http-echo", "backend", 0.0008, 0.002),
		diagComp("authbench", "load-generator", 0.02, 0.05)}
	its := []diagIter{
		{rps: 28.6, mean: 1712, p95: 3150, min: 41, ok: 9996, s403: 4},
		{rps: 29.3, mean: 1675, p95: 3120, min: 40, ok: 9996, s403: 4},
		{rps: 29.0, mean: 1690, p95: 3140, min: 42, ok: 9996, s403: 4},
		{rps: 28.8, mean: 1702, p95: 3160, min: 40, ok: 9996, s403: 4},
		{rps: 29.4, mean: 1668, p95: 3130, min: 41, ok: 9996, s403: 4},
	}
	for i := range its {
		its[i].comps = comps
	}
	return diagFixture(plan.Closed, 50, its...)
}

func diag2x() *results.Run {
	comps := []results.ComponentUsage{diagComp("oauth-proxy", "auth-proxy", 0.0313, 0.0313),
		diagComp("echo-server", "backend", 0.0082, 0.0082)}
	its := []diagIter{
		{rps: 1044.2, mean: 47.6, p95: 55.3, ok: 10000}, {rps: 1041.2, mean: 47.9, p95: 55.0, ok: 10000},
		{rps: 1037.0, mean: 48.1, p95: 55.4, ok: 10000}, {rps: 1018.0, mean: 48.9, p95: 55.9, ok: 10000},
		{rps: 1019.0, mean: 48.8, p95: 55.3, ok: 10000},
	}
	for i := range its {
		its[i].comps = comps
	}
	return diagFixture(plan.Closed, 50, its...)
}
