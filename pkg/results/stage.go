package results

import "time"

// Stage is what one stage of a staged open loop (plan.Load.Stages)
// measured. A request belongs to the stage of its intended send time, so
// a stage's latency includes the queueing its own rate caused, even when
// the answer came in the next stage.
type Stage struct {
	// Stage is the stage's position, 1-based; Spec its --stages form,
	// such as "60s:100-500".
	Stage int    `json:"stage"`
	Spec  string `json:"spec"`
	// FromRPS and ToRPS are the target rate at the stage's start and end;
	// TargetRPS is their mean, what AchievedRPS is held against.
	FromRPS   float64 `json:"from_rps"`
	ToRPS     float64 `json:"to_rps"`
	TargetRPS float64 `json:"target_rps"`
	// Start and End are the stage's window on the wall clock (End cut
	// short when the run was interrupted).
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	DurationS float64   `json:"duration_s"`
	// Scheduled counts the requests due in the stage; Requests those that
	// completed (answered or failed), Successes those answered < 400.
	Scheduled   int64   `json:"scheduled"`
	Requests    int64   `json:"requests"`
	Successes   int64   `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
	// AchievedRPS is the send rate reached: (sent-1) over the time from
	// the stage's first send to its last.
	AchievedRPS float64 `json:"achieved_rps"`
	// LateSends counts sends more than 1 ms after their intended time;
	// Unsent those due but never sent (every connection busy at the end).
	LateSends int64 `json:"late_sends"`
	Unsent    int64 `json:"unsent,omitempty"`
	// Latency is from intended send time (corrected), LatencyUncorrected
	// from actual send, both read from the stage's merged histograms.
	Latency            Latency `json:"latency_ms"`
	LatencyUncorrected Latency `json:"latency_uncorrected_ms"`
	// Status counts responses by HTTP status, Errors transport failures
	// by class, as Result's.
	Status map[string]int64 `json:"status"`
	Errors map[string]int64 `json:"errors"`
	// Components is each sampled component's usage over the stage's
	// window (without the per-second samples, which the result holds).
	Components []ComponentUsage `json:"components,omitempty"`
}
