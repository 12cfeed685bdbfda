// Package capacity searches for the highest open-loop rate a target serves
// within an SLO: a fast ramp (doubling from a minimum rate) until the SLO
// breaks or the achieved rate stops following the offered one, then a
// bisection with repeated measurements near the boundary, until the
// interval is narrow enough or the time budget is spent.
//
// The search is pure logic over a Measure function, so where and how the
// load runs (this process, a Kubernetes Job) is the caller's business; the
// Result is data (the capacity with its uncertainty, the curve, the knee,
// the component that saturated first), worded by WriteText.
package capacity

import (
	"context"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Measure runs one step: the open-loop load at rate requests per second,
// and what it measured. An error stops the search (a setup failure, or
// ctx done); per-request failures are data in the Point.
type Measure func(ctx context.Context, rate float64) (Point, error)

// local reports whether the component runs on this host.
func local(c Component) bool { return c.Source == "" || c.Source == "local" }

// PointFrom reads a step's Point from the engine's result of an open-loop
// attack at the offered rate.
func PointFrom(r results.Result) Point {
	p := Point{
		Offered: r.TargetRPS, Achieved: r.ThroughputRPS, Throughput: r.ThroughputRPS,
		P50: r.Latency.P50, P95: r.Latency.P95, P99: r.Latency.P99,
		SuccessRate: r.SuccessRate, Requests: r.Requests,
	}
	switch {
	case r.Unsent != nil && r.Requests+*r.Unsent > 0:
		p.Achieved = r.TargetRPS * float64(r.Requests) / float64(r.Requests+*r.Unsent)
	case r.Model == plan.Open:
		// Nothing left unsent: the engine kept the schedule.
		p.Achieved = r.TargetRPS
	}
	for _, u := range r.Components {
		p.Components = append(p.Components, Component{Name: u.Name, Role: u.Role, Source: u.Source,
			CPU: u.CPUMean, Limit: u.CPULimit, Throttled: u.ThrottledRatio})
	}
	return p
}
