package report

import (
	"fmt"
	"strings"
	"time"
)

// ProgressState is a snapshot of a running iteration.
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

// Progress formats one status line, such as
//
//	api 2/5  12,345/20,000 (61.7%)  9503.5 req/s  12 errors (0.10%)  1.3s
//
// without a newline. The rate and the percentage have fixed widths so that a
// line redrawn in place jitters less; the caller writes "\r" before it (and "\x1b[K"
// after, on a terminal) and decides whether it is on a terminal at all.
func Progress(p ProgressState) string {
	var parts []string
	who := p.Target
	if p.Iteration > 0 {
		who = strings.TrimSpace(fmt.Sprintf("%s %d/%d", who, p.Iteration, max(p.Iterations, p.Iteration)))
	}
	if who != "" {
		parts = append(parts, who)
	}
	done := fmtCount(p.Done)
	if p.Total > 0 {
		done = fmt.Sprintf("%s/%s (%5.1f%%)", done, fmtCount(p.Total), 100*float64(p.Done)/float64(p.Total))
	} else {
		done += " requests"
	}
	parts = append(parts, done)
	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.Done) / s
	}
	parts = append(parts, fmt.Sprintf("%9.1f req/s", rate))
	errs := fmt.Sprintf("%s errors", fmtCount(p.Errors))
	if p.Errors > 0 {
		errs += " (" + fmtPercent(p.Errors, p.Done) + ")"
	}
	parts = append(parts, errs)
	elapsed := p.Elapsed.Round(100 * time.Millisecond).String()
	if p.Duration > 0 {
		elapsed += "/" + p.Duration.String()
	}
	parts = append(parts, elapsed)
	return strings.Join(parts, "  ")
}
