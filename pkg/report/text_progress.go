package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/load"
)

// ProgressState is a snapshot of a running iteration (load's).
type ProgressState = load.ProgressState

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
