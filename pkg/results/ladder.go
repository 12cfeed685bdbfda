package results

import "github.com/authbench/authbench/pkg/plan"

// Layer kinds of a ladder.
const (
	// LayerInline is a layer that forwards to the layers inside it: its
	// rung's latency includes theirs.
	LayerInline = "inline"
	// LayerExtAuthz is an authorization service the next layer outwards
	// calls on the side (Envoy's ext_authz): its rung
	// answers on its own, without the layers inside it.
	LayerExtAuthz = "ext_authz"
)

// EndToEnd names the ladder's end-to-end slot: the target's own URL,
// measured on its own, never derived from the rungs.
const EndToEnd = "end-to-end"

// Ladder is the layer-by-layer attribution of one target's latency: the
// same load sent to each layer's own entry point (rung), inside out,
// interleaved over rounds, and each layer's added latency computed from
// the merged per-rung histograms.
type Ladder struct {
	Target string `json:"target"`
	// Stack is the lab stack ("2x", "3x"), when the ladder ran in the lab.
	Stack string     `json:"stack,omitempty"`
	Model plan.Model `json:"model"`
	// RateRPS is the open loop's total rate, the same on every rung.
	RateRPS float64 `json:"rate_rps,omitempty"`
	// RateFraction is RateRPS over the weakest rung's capacity, when the
	// rate was derived from it (0 when given).
	RateFraction float64 `json:"rate_fraction,omitempty"`
	Concurrency  int     `json:"concurrency"`
	// SlotDurationS or SlotRequests bound each rung's turn in a round.
	SlotDurationS float64 `json:"slot_duration_s,omitempty"`
	SlotRequests  int64   `json:"slot_requests,omitempty"`
	Rounds        int     `json:"rounds"`
	// Order is the measured sequence of one round (rung names).
	Order []string `json:"order"`
	// Confidence is the level of every interval, e.g. 0.95.
	Confidence float64 `json:"confidence"`
	Resamples  int     `json:"resamples"`
	// Layers are ordered from the client inwards.
	Layers []LadderLayer `json:"layers"`
	// TotalMs is the end-to-end latency, measured on the end-to-end slot.
	TotalMs   LadderQuantiles `json:"total_ms"`
	TotalCIMs LadderIntervals `json:"total_ci_ms"`
	// SumMs is the sum of the layers' added latencies.
	SumMs LadderQuantiles `json:"sum_ms"`
	// UnattributedMs is TotalMs minus SumMs: what no rung covers plus
	// sampling noise. Reported even when it is zero.
	UnattributedMs   LadderQuantiles `json:"unattributed_ms"`
	UnattributedCIMs LadderIntervals `json:"unattributed_ci_ms"`
	// OverheadMs is the sum over every layer but the innermost: what the
	// stack in front of the backend adds.
	OverheadMs   LadderQuantiles `json:"overhead_ms"`
	OverheadCIMs LadderIntervals `json:"overhead_ci_ms"`
	// Bottleneck is the layer with the lowest own capacity (LadderLayer.OwnCapacityRPS).
	Bottleneck string `json:"bottleneck,omitempty"`
	// LateSendFraction is the share of the open loop's requests sent more
	// than 1 ms after their scheduled time: above a few percent the host
	// (or the load generator) was busy, and every figure is noisier.
	LateSendFraction float64 `json:"late_send_fraction,omitempty"`
	// Rungs are the measured entry points, inside out, then the end-to-end slot.
	Rungs []LadderRung `json:"rungs"`
	// Hops are the gateway's own timings from its access log, shown beside
	// the ladder's figures (the ext_authz subrequest, the gateway's own time).
	Hops []HopTiming `json:"hops,omitempty"`
	// Notes qualify the figures.
	Notes []string `json:"notes,omitempty"`
}

// LadderLayer is one layer's attribution.
type LadderLayer struct {
	Name string `json:"name"`
	// Kind is LayerInline or LayerExtAuthz.
	Kind string `json:"kind"`
	// Includes names layers without a rung of their own whose cost this
	// layer's figure contains.
	Includes []string `json:"includes,omitempty"`
	URL      string   `json:"url"`
	// Formula says how the figure is computed from rung percentiles,
	// e.g. "envoy − kube-rbac-proxy − (oauth2-proxy − http-echo-3x)".
	Formula string          `json:"formula"`
	AddedMs LadderQuantiles `json:"added_ms"`
	CIMs    LadderIntervals `json:"ci_ms"`
	// Share is AddedMs over TotalMs, per percentile.
	Share LadderQuantiles `json:"share"`
	// CapacityRPS is the layer's rung's measured capacity.
	CapacityRPS float64 `json:"capacity_rps"`
	// OwnCapacityRPS is what the layer alone would serve: the inverse of
	// its per-request cost, its formula applied to the rungs' inverse
	// capacities (a request's cost at saturation; costs on shared cores
	// add like latencies). 0 when unknown or not positive.
	OwnCapacityRPS float64 `json:"own_capacity_rps,omitempty"`
}

// LadderRung is one measured entry point (or the end-to-end slot).
type LadderRung struct {
	Layer string `json:"layer"`
	URL   string `json:"url"`
	Kind  string `json:"kind"`
	// Target names this rung's entries in Run.Results (one per round).
	Target string `json:"target"`
	// Status and BodySHA256 are from the one probe request before the
	// ladder; they tell an ext_authz service (own answer) from a proxy.
	Status     int    `json:"status,omitempty"`
	BodySHA256 string `json:"body_sha256,omitempty"`
	// CapacityRPS is the successful throughput of a short closed-loop
	// probe at the ladder's concurrency.
	CapacityRPS         float64 `json:"capacity_rps"`
	CapacitySuccessRate float64 `json:"capacity_success_rate"`
	CapacityP50Ms       float64 `json:"capacity_p50_ms"`
	// LatencyMs is the merged latency of every round.
	LatencyMs   LadderQuantiles `json:"latency_ms"`
	Requests    int64           `json:"requests"`
	Successes   int64           `json:"successes"`
	SuccessRate float64         `json:"success_rate"`
}

// HopTiming is one timing the gateway logged per request, aggregated over
// the requests that went through the gateway during the ladder.
type HopTiming struct {
	// Name says what is timed, e.g. "ext_authz subrequest".
	Name string `json:"name"`
	// Layer is the ladder layer the timing sits beside.
	Layer string `json:"layer"`
	// Source names the log field, e.g. "Envoy's ext_authz filter state latency_us".
	Source string `json:"source"`
	Log    string `json:"log,omitempty"`
	// Requests is how many logged requests the percentiles cover.
	Requests int64           `json:"requests"`
	Ms       LadderQuantiles `json:"ms"`
	// ResolutionMs is the log's resolution (Envoy: 0.001 ms, HAProxy: 1 ms).
	ResolutionMs float64 `json:"resolution_ms"`
	// LadderMs is the ladder's figure the timing compares with, and
	// LadderFigure says which: "added" (the layer's added latency) or
	// "rung" (the latency of the layer's rung, as the gateway sees it).
	LadderMs     LadderQuantiles `json:"ladder_ms"`
	LadderFigure string          `json:"ladder_figure"`
	// Missing says why the hop could not be timed; the figures are then 0.
	Missing string `json:"missing,omitempty"`
}

// LadderQuantiles are the P50, P95 and P99 of one figure.
type LadderQuantiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// LadderIntervals are confidence intervals [low, high] at P50, P95 and P99.
type LadderIntervals struct {
	P50 [2]float64 `json:"p50"`
	P95 [2]float64 `json:"p95"`
	P99 [2]float64 `json:"p99"`
}

// LadderPercentiles are the percentiles every ladder figure is given at.
var LadderPercentiles = [3]float64{50, 95, 99}

// Values returns the figures in LadderPercentiles' order.
func (q LadderQuantiles) Values() [3]float64 { return [3]float64{q.P50, q.P95, q.P99} }

// QuantilesOf builds LadderQuantiles from values in LadderPercentiles' order.
func QuantilesOf(v [3]float64) LadderQuantiles {
	return LadderQuantiles{P50: v[0], P95: v[1], P99: v[2]}
}

// Values returns the intervals in LadderPercentiles' order.
func (c LadderIntervals) Values() [3][2]float64 { return [3][2]float64{c.P50, c.P95, c.P99} }

// IntervalsOf builds LadderIntervals from intervals in LadderPercentiles' order.
func IntervalsOf(v [3][2]float64) LadderIntervals {
	return LadderIntervals{P50: v[0], P95: v[1], P99: v[2]}
}
