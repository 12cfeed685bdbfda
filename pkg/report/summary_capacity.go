package report

import (
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// isCapacity says the run is a capacity search: its results are steps at
// rates of their own, points of a curve rather than iterations of one load.
func (s *summaryWriter) isCapacity() bool { return s.run.Kind == results.KindCapacity }

// unit names a result in tables: a step of a search, else an iteration.
func (s *summaryWriter) unit() string {
	if s.isCapacity() {
		return "Step"
	}
	return "Iteration"
}

// capacityConfig replaces the load's rate and iteration count, which
// describe only a search's first step, with the rates it searched.
func (s *summaryWriter) capacityConfig() {
	l := s.run.Plan.Load
	if l.Duration > 0 {
		s.item("Duration per Step", "%s", l.Duration)
	}
	lo, hi, n := offeredSpan(s.run.Results)
	s.item("Search", "%d steps offered from %s to %s, each at its own rate, for the highest that meets %s",
		n, fmtRPS(lo), fmtRPS(hi), sloWords(s.run.Plan.SLO))
	if l.Concurrency > 0 {
		s.item("Concurrency", "at most %d requests in flight", l.Concurrency)
	}
	if l.WarmupRequests > 0 || l.WarmupDuration > 0 {
		s.item("Warm-up", "%s (not recorded)", warmup(l))
	}
	s.item("Tool", "%s", s.tool())
	s.item("Load Model", "open loop — each step schedules its requests at its offered rate whatever the target's "+
		"speed, and latency is measured from each request's intended send time, so it is corrected for "+
		"coordinated omission.")
	s.item("Client", "%s", clientLine(s.run.Plan.Client, s.anyHTTPS()))
}

// offeredSpan is the lowest and highest offered rate and the step count.
func offeredSpan(rs []results.Result) (lo, hi float64, n int) {
	for _, r := range rs {
		if r.TargetRPS <= 0 {
			continue
		}
		if n == 0 || r.TargetRPS < lo {
			lo = r.TargetRPS
		}
		hi, n = max(hi, r.TargetRPS), n+1
	}
	return lo, hi, n
}

func sloWords(slo *plan.SLO) string {
	if slo == nil {
		return "the SLO"
	}
	return "the SLO " + capacity.SLOText(*slo)
}

// capacitySteps writes a search's steps with the SLO's verdict on each,
// in place of the means and stability taken over iterations, which over
// steps at different rates would mean nothing.
func (s *summaryWriter) capacitySteps(t targetRun) {
	s.heading(3, "Search Steps")
	s.printf("| Step | Offered | P50 | P95 | P99 | Served | Success Rate | SLO |\n")
	s.printf("|------|---------|-----|-----|-----|--------|--------------|-----|\n")
	for _, r := range t.results {
		l := r.Latency
		s.printf("| %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Iteration, fmtRPS(r.TargetRPS),
			lat(l, l.P50), lat(l, l.P95), lat(l, l.P99), fmtRPS(r.ThroughputRPS),
			successCell(r.Successes, r.Requests), stepVerdict(s.an.Step(r.Target, r.Iteration)))
	}
	s.printf("\nThese are the steps of a capacity search, each at its own offered rate: points of a curve, not " +
		"iterations of one load, so no mean or stability is taken across them. The capacity found is under " +
		"Recommendations; capacity.json holds the search and report.html draws the curve.\n\n")
}

// stepVerdict words the SLO's verdict on one step.
func stepVerdict(v analyze.SLOVerdict) string {
	switch v {
	case analyze.SLOMet:
		return "✅ met"
	case analyze.SLOMissed:
		return "❌ missed"
	}
	return "—"
}
