package analyze

import (
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// TestSummarize: a load run gets SLA suggestions per target from the
// iterations that measured a latency; a capacity run gets the SLO's
// verdict on each step and no suggestion.
func TestSummarize(t *testing.T) {
	slo := &plan.SLO{P99: plan.Duration(100 * time.Millisecond)}
	step := func(n int, p99 float64) results.Result {
		return results.Result{Target: "a", Iteration: n, Requests: 10, Successes: 10, SuccessRate: 1, Latency: results.Latency{P50: 1, P95: 2, P99: p99}}
	}
	load := &results.Run{Plan: plan.Plan{SLO: slo}, Results: []results.Result{
		{Target: "a", Iteration: 1, Model: plan.Closed, Requests: 10, Latency: results.Latency{P50: 4, P95: 8, P99: 40}},
		{Target: "b", Iteration: 1, Requests: 10}}}
	s := Summarize(load)
	if a, ok := s.TargetSLA("a"); !ok || !a.Closed || a.Worst[2] != 40 || a.Target[2] != NiceCeil(40*SLAMargin) {
		t.Errorf("a's SLA = %+v, %v; want from P99 40 ms, closed loop", a, ok)
	}
	if _, ok := s.TargetSLA("b"); ok {
		t.Error("b measured no latency, yet has an SLA suggestion")
	}
	capRun := &results.Run{Kind: results.KindCapacity, Plan: plan.Plan{SLO: slo}, Results: []results.Result{step(1, 50), step(2, 500)}}
	c := Summarize(capRun)
	if c.Step("a", 1) != SLOMet || c.Step("a", 2) != SLOMissed || c.Step("b", 1) != SLOUnchecked {
		t.Errorf("step verdicts %v %v %v, want met, missed, unchecked", c.Step("a", 1), c.Step("a", 2), c.Step("b", 1))
	}
	if _, ok := c.TargetSLA("a"); ok {
		t.Error("a capacity run suggests an SLA")
	}
}
