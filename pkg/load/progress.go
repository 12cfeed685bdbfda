package load

import "time"

// ProgressState is a snapshot of a running phase, for a progress line
// (report.Progress draws the CLI's).
type ProgressState struct {
	// Target names the target; empty hides it.
	Target string
	// Iteration is 1-based; 0 hides "iteration/iterations".
	Iteration, Iterations int
	// Done is the number of requests completed so far, failed ones included.
	Done int64
	// Total is the planned number of requests; 0 when the iteration is timed.
	Total int64
	// Errors counts failed requests so far (HTTP ≥ 400 and transport).
	Errors int64
	// Elapsed is the time since the iteration started.
	Elapsed time.Duration
	// Duration is the planned length of a timed iteration; 0 otherwise.
	Duration time.Duration
}
