package capacity

import (
	"sort"

	"github.com/authbench/authbench/pkg/plan"
)

// KneeRise is how much the curve's P99 must grow from its knee to its
// last point for the knee to be reported: a flat curve has none.
const KneeRise = 2.0

// Step is one measurement of the search, in the order measured.
type Step struct {
	// N is the step's number from 1; the run directory's Result for the
	// step has it as its Iteration.
	N int `json:"step"`
	// Phase is PhaseRamp, PhaseBisect or PhaseConfirm.
	Phase string `json:"phase"`
	Point
	// Pass is true when the step met the SLO and kept up; Missed says
	// what it missed otherwise.
	Pass   bool   `json:"pass"`
	Missed []Miss `json:"missed,omitempty"`
	// Seconds is the step's wall time.
	Seconds float64 `json:"seconds"`
}

// Result is what a search found.
type Result struct {
	// Target names what was searched (set by the caller).
	Target string   `json:"target,omitempty"`
	SLO    plan.SLO `json:"slo"`
	// Capacity is the highest rate, below every failing rate, at which
	// most measurements met the SLO; 0 when even Options.Min missed it.
	Capacity float64 `json:"capacity_rps"`
	// FirstFail is the lowest rate that mostly missed the SLO: the capacity lies
	// between Capacity and FirstFail. 0 when no rate failed.
	FirstFail float64 `json:"first_fail_rps,omitempty"`
	// Width is (FirstFail − Capacity) / Capacity, the relative uncertainty
	// of the capacity (0 when either bound is missing); Precision is the
	// width the search aimed for.
	Width     float64 `json:"relative_width,omitempty"`
	Precision float64 `json:"precision"`
	// Sustained is the lowest throughput (completed requests per second)
	// among the measurements at Capacity: what the target delivered there.
	// Capacity is an offered rate, and a rate a little above what the
	// target can serve still passes while its backlog stays small within
	// a step (by up to 1/Follow); Sustained is then the target's own pace.
	Sustained float64 `json:"sustained_rps,omitempty"`
	// Spread is over the measurements at Capacity (nil when 0).
	Spread *Spread `json:"spread,omitempty"`
	// ThroughputMet says whether Capacity reaches the SLO's throughput
	// minimum; nil when the SLO has none.
	ThroughputMet *bool `json:"throughput_met,omitempty"`
	// Knee is where the latency curve bends up (nil when it does not, or
	// with fewer than three rates measured).
	Knee *Knee `json:"knee,omitempty"`
	// Bottleneck is the component that saturated first (nil when no
	// component was sampled).
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// Host is how much of the host the local components used at capacity
	// (nil when none was sampled).
	Host *HostUse `json:"host,omitempty"`
	// Stop says why the search ended: StopPrecision, StopMax, ...
	Stop string `json:"stop"`
	// ElapsedS is the search's wall time in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// Steps are the measurements in the order taken.
	Steps []Step `json:"steps"`
	// Curve has one point per offered rate, ascending: the step with the
	// highest P99 at that rate (percentiles are never averaged). It is
	// the latency-against-offered-load chart's data.
	Curve []Point `json:"curve"`
}

// Spread is the variation over the repeated measurements at one rate.
type Spread struct {
	// N counts the measurements at the rate, Passed those meeting the SLO.
	N             int     `json:"n"`
	Passed        int     `json:"passed"`
	AchievedMin   float64 `json:"achieved_min_rps"`
	AchievedMax   float64 `json:"achieved_max_rps"`
	ThroughputMin float64 `json:"throughput_min_rps"`
	ThroughputMax float64 `json:"throughput_max_rps"`
	P99Min        float64 `json:"p99_min_ms"`
	P99Max        float64 `json:"p99_max_ms"`
}

// Knee is the last point of the curve before latency climbs: the point
// furthest below the straight line from the curve's first point to its
// last, on axes scaled to [0, 1] (the Kneedle rule for a convex, rising
// curve). Next is the curve's following point.
type Knee struct {
	Rate     float64 `json:"offered_rps"`
	P99      float64 `json:"p99_ms"`
	NextRate float64 `json:"next_offered_rps"`
	NextP99  float64 `json:"next_p99_ms"`
}

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
			by[st.Offered] = st.Point
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
