package runner

import (
	"testing"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/results"
)

// TestAtCapacity: findings, SLO checks and sizing of a capacity run
// describe the passing steps at the capacity found, target by target.
func TestAtCapacity(t *testing.T) {
	step := func(n int, rate float64, pass bool) capacity.Step {
		return capacity.Step{N: n, Point: capacity.Point{Offered: rate}, Pass: pass}
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
