// Package observe samples the CPU, memory and CPU throttling of the
// components behind a target (proxies, backends, authbench itself) while a
// run goes on, and turns the samples into results.ComponentUsage per
// iteration.
//
// Two kinds of Sampler exist. A Poller (LocalSampler: /proc and cgroups)
// keeps no history and is read by the Monitor on its own clock, before,
// during and after the load. A RangeQuerier (PrometheusSampler) has a
// history of its own and is asked for each window afterwards. Both produce
// the same Points, so one piece of arithmetic (usage.go) summarises either.
package observe

import (
	"context"
	"math"
	"time"
)

// Sources of readings, as recorded in results.ComponentUsage.Source.
const (
	SourceLocal      = "local"
	SourcePrometheus = "prometheus"
)

// Component names what a sampler reads, as it appears in results.
type Component struct {
	Name string
	// Role says what the component does: "auth-proxy", "backend",
	// "gateway", "load-generator"; the diagnosis keys on it.
	Role string
}

// Point is one reading of one component. Counters are cumulative and only
// their differences mean anything. NaN marks a value the source did not give.
type Point struct {
	Time time.Time
	// CPUSeconds is CPU time used (counter).
	CPUSeconds float64
	// MemBytes is the resident set or cgroup working set (gauge).
	MemBytes float64
	// Periods, ThrottledPeriods and ThrottledSeconds are CFS counters.
	Periods          float64
	ThrottledPeriods float64
	ThrottledSeconds float64
	// CPULimit is the CPU limit in cores, MemLimit the memory limit in
	// bytes; 0 means none.
	CPULimit float64
	MemLimit float64
}

// unknownPoint is a Point at t with every value unknown.
func unknownPoint(t time.Time) Point {
	n := math.NaN()
	return Point{Time: t, CPUSeconds: n, MemBytes: n, Periods: n, ThrottledPeriods: n,
		ThrottledSeconds: n, CPULimit: n, MemLimit: n}
}

func known(v float64) bool { return !math.IsNaN(v) }

// Sampler reads the resource use of a fixed list of components.
type Sampler interface {
	// Source names where readings come from: SourceLocal or SourcePrometheus.
	Source() string
	// Components lists what the sampler reads, in the order it reports them.
	Components() []Component
}

// Poller is a Sampler without history, read on the Monitor's clock.
type Poller interface {
	Sampler
	// Poll reads every component once. The result is aligned with
	// Components(); a component that could not be read has a zero Time,
	// and err says why (per-component failures joined).
	Poll(now time.Time) ([]Point, error)
}

// RangeQuerier is a Sampler with its own history, asked for a window.
type RangeQuerier interface {
	Sampler
	// QueryRange returns each component's points in [start, end], aligned
	// with Components().
	QueryRange(ctx context.Context, start, end time.Time) ([][]Point, error)
}
