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

// Point is what one step measured at one offered rate.
type Point struct {
	// Offered is the rate asked for, in requests per second.
	Offered float64 `json:"offered_rps"`
	// Achieved is the rate the engine sent at: Offered times the share of
	// the step's scheduled requests it sent, the others having fallen due
	// while every connection (its bound on requests in flight) was busy.
	// A target slower than Offered holds it down to its own pace; a late
	// send still counts, so a stall of the host does not.
	Achieved float64 `json:"achieved_rps"`
	// Throughput is completed requests (any outcome) per second.
	Throughput float64 `json:"throughput_rps"`
	// P50, P95 and P99 are corrected latencies (from each request's
	// intended send time), in milliseconds.
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	// SuccessRate is the fraction of requests answered with HTTP < 400.
	SuccessRate float64 `json:"success_rate"`
	// Requests counts completed requests.
	Requests int64 `json:"requests"`
	// Components is each sampled component's CPU during the step; empty
	// when nothing was sampled.
	Components []Component `json:"components,omitempty"`
}

// Component is one sampled component's CPU during one step.
type Component struct {
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
	// Source is "local" (this host) or "prometheus" (elsewhere).
	Source string `json:"source,omitempty"`
	// CPU is the mean use in cores; Limit the CPU limit in cores (0: none).
	CPU   float64 `json:"cpu_cores"`
	Limit float64 `json:"cpu_limit_cores,omitempty"`
	// Throttled is the share of CFS periods throttled.
	Throttled float64 `json:"throttled_ratio,omitempty"`
}

// local reports whether the component runs on this host.
func (c Component) local() bool { return c.Source == "" || c.Source == "local" }

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
