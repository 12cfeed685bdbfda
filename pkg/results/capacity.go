package results

import "github.com/authbench/authbench/pkg/plan"

// CapacityFile is where a capacity run keeps its searches, beside
// run.json: one CapacitySearch per target, written by pkg/capacity's
// search and read by history, compare and publish.
const CapacityFile = "capacity.json"

// CapacitySearch is what a search found.
type CapacitySearch struct {
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
	// CapacitySpread is over the measurements at Capacity (nil when 0).
	Spread *CapacitySpread `json:"spread,omitempty"`
	// ThroughputMet says whether Capacity reaches the SLO's throughput
	// minimum; nil when the SLO has none.
	ThroughputMet *bool `json:"throughput_met,omitempty"`
	// CapacityKnee is where the latency curve bends up (nil when it does not, or
	// with fewer than three rates measured).
	Knee *CapacityKnee `json:"knee,omitempty"`
	// CapacityBottleneck is the component that saturated first (nil when no
	// component was sampled).
	Bottleneck *CapacityBottleneck `json:"bottleneck,omitempty"`
	// Host is how much of the host the local components used at capacity
	// (nil when none was sampled).
	Host *CapacityHostUse `json:"host,omitempty"`
	// Stop says why the search ended: StopPrecision, StopMax, ...
	Stop string `json:"stop"`
	// ElapsedS is the search's wall time in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// Scale is the replica count the search ran at (nil: not scaled).
	Scale *CapacityScale `json:"scale,omitempty"`
	// Steps are the measurements in the order taken.
	Steps []CapacityStep `json:"steps"`
	// Curve has one point per offered rate, ascending: the step with the
	// highest P99 at that rate (percentiles are never averaged). It is
	// the latency-against-offered-load chart's data.
	Curve []CapacityPoint `json:"curve"`
}

// CapacityStep is one measurement of the search, in the order measured.
type CapacityStep struct {
	// N is the step's number from 1; the run directory's CapacitySearch for the
	// step has it as its Iteration.
	N int `json:"step"`
	// Phase is PhaseRamp, PhaseBisect or PhaseConfirm.
	Phase string `json:"phase"`
	CapacityPoint
	// Pass is true when the step met the SLO and kept up; Missed says
	// what it missed otherwise.
	Pass   bool           `json:"pass"`
	Missed []CapacityMiss `json:"missed,omitempty"`
	// Seconds is the step's wall time.
	Seconds float64 `json:"seconds"`
}

// CapacityPoint is what one step measured at one offered rate.
type CapacityPoint struct {
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
	Components []CapacityComponent `json:"components,omitempty"`
}

// CapacityComponent is one sampled component's CPU during one step.
type CapacityComponent struct {
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

// CapacityMiss is one objective a step missed: what was measured against what was
// allowed, in the objective's unit (ms, ratio, or req/s for "achieved").
type CapacityMiss struct {
	Objective string  `json:"objective"`
	Measured  float64 `json:"measured"`
	Limit     float64 `json:"limit"`
}

// CapacitySpread is the variation over the repeated measurements at one rate.
type CapacitySpread struct {
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

// CapacityKnee is the last point of the curve before latency climbs: the point
// furthest below the straight line from the curve's first point to its
// last, on axes scaled to [0, 1] (the Kneedle rule for a convex, rising
// curve). Next is the curve's following point.
type CapacityKnee struct {
	Rate     float64 `json:"offered_rps"`
	P99      float64 `json:"p99_ms"`
	NextRate float64 `json:"next_offered_rps"`
	NextP99  float64 `json:"next_p99_ms"`
}

// CapacityBottleneck is the component that saturated first along the curve: the
// first, by offered rate, to run into its CPU limit (analyze.LimitUse of
// it) or be throttled (analyze.ThrottleRatio of its periods). When none
// did, it is the busiest component (the load generator aside) at the first
// failing rate, with Saturated false: CPU alone cannot tell an unlimited
// component's ceiling.
type CapacityBottleneck struct {
	Component string  `json:"component"`
	Role      string  `json:"role,omitempty"`
	Rate      float64 `json:"offered_rps"`
	CPU       float64 `json:"cpu_cores"`
	Limit     float64 `json:"cpu_limit_cores,omitempty"`
	Throttled float64 `json:"throttled_ratio,omitempty"`
	Saturated bool    `json:"saturated"`
}

// CapacityHostUse is what the local components (the load generator among them)
// used together at one rate, against the host's CPUs. Contended is true
// from analyze.HostContention of them: the capacity is then the host's.
type CapacityHostUse struct {
	Rate      float64 `json:"offered_rps"`
	CPU       float64 `json:"cpu_cores"`
	CPUs      int     `json:"host_cpus"`
	Share     float64 `json:"share"`
	Contended bool    `json:"contended"`
}

// AtCapacity reports whether step n passed at the capacity found: the
// steps a capacity run's history row describes.
func (s CapacitySearch) AtCapacity(n int) bool {
	for _, st := range s.Steps {
		if st.N == n {
			return st.Pass && s.Capacity > 0 && st.Offered == s.Capacity
		}
	}
	return false
}
