package capacity

import (
	"sort"

	"github.com/authbench/authbench/pkg/results"
)

// KneeRise is how much the curve's P99 must grow from its knee to its
// last point for the knee to be reported: a flat curve has none.
const KneeRise = 2.0

// The search's record is capacity.json's schema, which pkg/results holds
// with every on-disk schema; these are its names here.
type (
	// Result is what a search found.
	Result = results.CapacitySearch
	// Step is one measurement of the search, in the order measured.
	Step = results.CapacityStep
	// Point is what one step measured at one offered rate.
	Point = results.CapacityPoint
	// Component is one sampled component's CPU during one step.
	Component = results.CapacityComponent
	// Miss is one objective a step missed.
	Miss = results.CapacityMiss
	// Spread is the variation over the repeated measurements at one rate.
	Spread = results.CapacitySpread
	// Knee is the last point of the curve before latency climbs.
	Knee = results.CapacityKnee
	// Bottleneck is the component that saturated first along the curve.
	Bottleneck = results.CapacityBottleneck
	// HostUse is what the local components used together at one rate.
	HostUse = results.CapacityHostUse
)

// result computes the Result from the steps measured.
func (s *searcher) result() *Result {
	lo, hi := bounds(s.steps)
	r := &Result{SLO: s.o.SLO, Capacity: lo, FirstFail: hi, Precision: s.o.Precision, Stop: s.stop,
		ElapsedS: s.o.Now().Sub(s.start).Seconds(), Steps: s.steps, Curve: curve(s.steps)}
	if lo > 0 && hi > 0 {
		r.Width = (hi - lo) / lo
	}
	r.Spread = spread(s.steps, lo)
	if r.Spread != nil {
		r.Sustained = r.Spread.ThroughputMin
	}
	if s.o.SLO.Throughput > 0 {
		met := lo >= s.o.SLO.Throughput
		r.ThroughputMet = &met
	}
	r.Knee = knee(r.Curve)
	r.Bottleneck = bottleneck(r.Curve, hi)
	r.Host = hostUse(r.Curve, lo, s.o.HostCPUs)
	return r
}

// curve keeps the worst step (highest P99) of each rate, by rate.
func curve(steps []Step) []Point {
	by := map[float64]Point{}
	for _, st := range steps {
		if p, ok := by[st.Offered]; !ok || st.P99 > p.P99 {
			by[st.Offered] = st.CapacityPoint
		}
	}
	out := make([]Point, 0, len(by))
	for _, p := range by {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Offered < out[j].Offered })
	return out
}

func spread(steps []Step, rate float64) *Spread {
	var sp *Spread
	for _, st := range steps {
		if rate == 0 || st.Offered != rate {
			continue
		}
		if sp == nil {
			sp = &Spread{AchievedMin: st.Achieved, AchievedMax: st.Achieved, P99Min: st.P99, P99Max: st.P99,
				ThroughputMin: st.Throughput, ThroughputMax: st.Throughput}
		}
		sp.N++
		if st.Pass {
			sp.Passed++
		}
		sp.AchievedMin, sp.AchievedMax = min(sp.AchievedMin, st.Achieved), max(sp.AchievedMax, st.Achieved)
		sp.ThroughputMin, sp.ThroughputMax = min(sp.ThroughputMin, st.Throughput), max(sp.ThroughputMax, st.Throughput)
		sp.P99Min, sp.P99Max = min(sp.P99Min, st.P99), max(sp.P99Max, st.P99)
	}
	return sp
}

// knee applies the Kneedle rule to P99 against the offered rate.
func knee(c []Point) *Knee {
	if len(c) < 3 {
		return nil
	}
	first, last := c[0], c[len(c)-1]
	dx, dy := last.Offered-first.Offered, last.P99-first.P99
	if dx <= 0 || dy <= 0 {
		return nil
	}
	best, at := 0.0, -1
	for i, p := range c[:len(c)-1] {
		if d := (p.Offered-first.Offered)/dx - (p.P99-first.P99)/dy; d > best {
			best, at = d, i
		}
	}
	if at < 0 || last.P99 < KneeRise*c[at].P99 {
		return nil
	}
	return &Knee{Rate: c[at].Offered, P99: c[at].P99, NextRate: c[at+1].Offered, NextP99: c[at+1].P99}
}
