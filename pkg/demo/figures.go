package demo

import (
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/runner"
)

// figures are one target's headline figures over a run's iterations.
type figures struct {
	// P50 and P99 are the worst iteration's (percentiles are never
	// averaged).
	P50, P99 float64
	// sent is the share of the open loop's scheduled requests sent;
	// success the share of requests that succeeded.
	sent, success float64
}

// targetOf are target's figures in r (nil when it has none).
func targetOf(r *runner.Outcome, target string) *figures {
	if r == nil || r.Run == nil {
		return nil
	}
	var f *figures
	var offered, achieved float64
	var reqs, ok int64
	for _, res := range r.Run.Results {
		if res.Target != target {
			continue
		}
		if f == nil {
			f = &figures{}
		}
		f.P50, f.P99 = max(f.P50, res.Latency.P50), max(f.P99, res.Latency.P99)
		pt := capacity.PointFrom(res)
		offered, achieved = offered+pt.Offered, achieved+pt.Achieved
		reqs, ok = reqs+res.Requests, ok+res.Successes
	}
	if f == nil {
		return nil
	}
	f.sent = 1
	if offered > 0 {
		f.sent = achieved / offered
	}
	if reqs > 0 {
		f.success = float64(ok) / float64(reqs)
	}
	return f
}

// sloMet says whether every SLO check of target passed in r (known is
// false when none was checked).
func sloMet(r *runner.Outcome, target string) (ok, known bool) {
	ok = true
	for _, c := range r.Run.SLO {
		if c.Target == target {
			known = true
			ok = ok && c.Pass
		}
	}
	return ok, known
}
