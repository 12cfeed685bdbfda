package runner

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/results"
)

// TestAtCapacity: findings, SLO checks and sizing of a capacity run
// describe the passing steps at the capacity found, target by target.
func TestAtCapacity(t *testing.T) {
	step := func(n int, rate float64, pass bool) capacity.Step {
		return capacity.Step{N: n, CapacityPoint: capacity.Point{Offered: rate}, Pass: pass}
	}
	searches := []*capacity.Result{
		{Target: "a", Capacity: 400, Steps: []capacity.Step{step(1, 200, true), step(2, 400, true),
			step(3, 800, false), step(4, 400, false), step(5, 400, true)}},
		{Target: "b", Capacity: 0, Steps: []capacity.Step{step(1, 10, false), step(2, 10, false)}},
	}
	var rs []results.Result
	for _, s := range searches {
		for _, st := range s.Steps {
			rs = append(rs, results.Result{Target: s.Target, Iteration: st.N, TargetRPS: st.Offered})
		}
	}
	got := atCapacity(rs, searches)
	if len(got) != 2 || got[0].Target != "a" || got[0].Iteration != 2 || got[1].Iteration != 5 {
		t.Errorf("kept %+v, want a's steps 2 and 5 (400 req/s, passing)", got)
	}
}

// TestSizingUnderSLO: a capacity run sizes replicas on the rate served at
// the capacity under the SLO, not on the steps' mean throughput.
func TestSizingUnderSLO(t *testing.T) {
	searches := []*capacity.Result{{Target: "a", Capacity: 420, Sustained: 400}, {Target: "b"}}
	run := &results.Run{Results: []results.Result{
		{Target: "a", Iteration: 1, ThroughputRPS: 1000}, {Target: "b", Iteration: 1, ThroughputRPS: 50}}}
	got := analyze.PlanCapacity(run, analyze.CapacityOptions{TargetRPS: 1000, UnderSLO: underSLO(searches)})
	if len(got) != 2 {
		t.Fatalf("%d sizings, want 2", len(got))
	}
	a, b := got[0], got[1]
	if a.PerReplicaRPS != 400 || a.Basis != results.BasisSLOCapacity || a.Replicas != 4 {
		t.Errorf("a: %g req/s per replica (%q), %d replicas; want 400 under the SLO, 4 replicas for 1000 at 70%%",
			a.PerReplicaRPS, a.Basis, a.Replicas)
	}
	if len(a.Notes) == 0 || !strings.Contains(a.Notes[0], "under the SLO") {
		t.Errorf("a's notes do not say the figure is the capacity under the SLO: %q", a.Notes)
	}
	if b.PerReplicaRPS != 50 || b.Basis != "" {
		t.Errorf("b found no capacity: want its mean throughput 50, got %g (%q)", b.PerReplicaRPS, b.Basis)
	}
}
