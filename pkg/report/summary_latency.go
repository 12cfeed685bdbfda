package report

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Status thresholds for one iteration, as the hand-written reports used
// them: ✅ when at least 99.9% of requests succeeded and none failed in
// transport (a single refused or timed-out request hints at a capacity
// problem even when the rate rounds to 100%); ❌ below 90%, where the
// latency figures describe mostly failures; ⚠️ anywhere in between.
const (
	okRate   = 0.999
	failRate = 0.90
)

// statusIcon grades one result by the thresholds above.
func statusIcon(r results.Result) string {
	if r.Requests <= 0 {
		return "❌"
	}
	rate := float64(r.Successes) / float64(r.Requests)
	switch {
	case rate < failRate:
		return "❌"
	case rate >= okRate && transportErrors(r) == 0:
		return "✅"
	}
	return "⚠️"
}

// transportErrors counts requests that got no HTTP response.
func transportErrors(r results.Result) int64 {
	var n int64
	for _, c := range r.Errors {
		n += c
	}
	return n
}

// measured reports whether a latency summary holds data; a result whose
// every request failed before timing may carry an all-zero summary.
func measured(l results.Latency) bool {
	return l.Max > 0 || l.Mean > 0 || l.P50 > 0 || l.P99 > 0
}

// lat prints one latency of a summary, or "n/a" when none was measured.
func lat(l results.Latency, v float64) string {
	if !measured(l) {
		return "n/a"
	}
	return fmtLatency(v)
}

// successCell is "99.87% (9987/10000)", counts unseparated as in the migration
// reports.
func successCell(ok, total int64) string {
	if total <= 0 {
		return "n/a (0 requests)"
	}
	return fmt.Sprintf("%s (%d/%d)", fmtPercent(ok, total), ok, total)
}

// latency writes the per-iteration table and the metrics derived from it.
func (s *summaryWriter) latency(t targetRun) {
	s.heading(2, "Latency Results")
	if len(t.results) == 0 {
		s.printf("No iteration completed for this target.\n\n")
		return
	}
	if s.isCapacity() {
		s.capacitySteps(t)
		if hasOpen(t.results) {
			s.openLoop(t.results)
		}
		return
	}
	s.heading(3, "Performance Summary")
	s.printf("| Iteration | P50 | P95 | P99 | Throughput | Success Rate | Status |\n")
	s.printf("|-----------|-----|-----|-----|------------|--------------|--------|\n")
	for _, r := range t.results {
		l := r.Latency
		s.printf("| %d | %s | %s | %s | %s | %s | %s |\n", r.Iteration,
			lat(l, l.P50), lat(l, l.P95), lat(l, l.P99), fmtRPS(r.ThroughputRPS),
			successCell(r.Successes, r.Requests), statusIcon(r))
	}
	s.printf("\n✅ ≥ 99.9%% success and no transport errors · ⚠️ otherwise · ❌ below 90%% success.\n\n")
	if hasOpen(t.results) {
		s.openLoop(t.results)
	}
	s.keyMetrics(t.results)
	s.stability(t.results)
}

func hasOpen(rs []results.Result) bool {
	for _, r := range rs {
		if r.Model == plan.Open {
			return true
		}
	}
	return false
}

// openLoop shows how well the schedule was kept and what coordinated
// omission would have hidden.
func (s *summaryWriter) openLoop(rs []results.Result) {
	s.heading(3, "Open-Loop Schedule")
	s.printf("Corrected latency counts from each request's intended send time; uncorrected from when it was " +
		"actually sent. A large gap means requests waited to be sent — the delay a closed loop would hide " +
		"(coordinated omission). Late sends left after their scheduled time.\n\n")
	s.printf("| %s | Target Rate | Achieved Rate | Late Sends | P99 Corrected | P99 Uncorrected |\n", s.unit())
	s.printf("|-----------|-------------|---------------|------------|---------------|-----------------|\n")
	for _, r := range rs {
		achieved := notMeasured
		if r.AchievedRPS != nil {
			achieved = fmtRPS(*r.AchievedRPS)
			if r.TargetRPS > 0 {
				achieved += fmt.Sprintf(" (%s of target)", fmtFraction(*r.AchievedRPS/r.TargetRPS))
			}
		}
		late := notMeasured
		if r.LateSends != nil {
			late = fmt.Sprintf("%s (%s)", fmtCount(*r.LateSends), fmtPercent(*r.LateSends, r.Requests))
		}
		uncorrected := notMeasured
		if u := r.LatencyUncorrected; u != nil {
			uncorrected = lat(*u, u.P99)
		}
		target := notMeasured
		if r.TargetRPS > 0 {
			target = fmtRPS(r.TargetRPS)
		}
		s.printf("| %d | %s | %s | %s | %s | %s |\n", r.Iteration, target, achieved, late,
			lat(r.Latency, r.Latency.P99), uncorrected)
	}
	s.printf("\n")
	s.sendLag(rs)
}

// sendLag lists how late the engine sent against the schedule, where it
// measured it.
func (s *summaryWriter) sendLag(rs []results.Result) {
	var lines []string
	for _, r := range rs {
		if l := r.SendLag; l != nil {
			lines = append(lines, fmt.Sprintf("%s %d: P50 %s, P99 %s, max %s", strings.ToLower(s.unit()), r.Iteration,
				fmtLatency(l.P50Ms), fmtLatency(l.P99Ms), fmtLatency(l.MaxMs)))
		}
	}
	if len(lines) == 0 {
		return
	}
	s.item("Send lag (actual minus intended send time)", "%s", strings.Join(lines, "; "))
	s.printf("\n")
}

// keyMetrics averages per-iteration figures and adds the totals.
func (s *summaryWriter) keyMetrics(rs []results.Result) {
	s.heading(3, "Key Metrics")
	var p50, p95, p99, means, thr []float64
	var ok, total int64
	for _, r := range rs {
		if measured(r.Latency) {
			p50 = append(p50, r.Latency.P50)
			p95 = append(p95, r.Latency.P95)
			p99 = append(p99, r.Latency.P99)
			means = append(means, r.Latency.Mean)
		}
		thr = append(thr, r.ThroughputRPS)
		ok += r.Successes
		total += r.Requests
	}
	label := func(p string) string {
		if len(rs) == 1 {
			return p + " Latency"
		}
		if len(p50) > 0 && len(p50) < len(rs) {
			return fmt.Sprintf("Mean of per-iteration %s (%d of %d iterations measured)", p, len(p50), len(rs))
		}
		return "Mean of per-iteration " + p
	}
	for _, m := range []struct {
		name string
		xs   []float64
	}{{"P50", p50}, {"P95", p95}, {"P99", p99}} {
		if len(m.xs) == 0 {
			s.item(label(m.name), notMeasured)
			continue
		}
		s.item(label(m.name), "%s", fmtLatency(describe(m.xs).Mean))
	}
	if len(rs) == 1 {
		s.item("Throughput", "%s", fmtRPS(thr[0]))
	} else {
		s.item("Mean Throughput", "%s", fmtRPS(describe(thr).Mean))
	}
	if total > 0 {
		s.item("Overall Success Rate", "%s (%s/%s requests)", fmtPercent(ok, total), fmtCount(ok), fmtCount(total))
	} else {
		s.item("Overall Success Rate", "n/a — no request completed")
	}
	split, path := analyze.SplitPath(s.run, rs)
	path = path && split.Reported() && s.run.Ladder == nil
	if path {
		s.roundTrip(split)
	}
	if s.model() == plan.Closed {
		s.littlesLaw(means, describe(thr).Mean, path && split.Share >= analyze.RoundTripMain)
	}
	if len(rs) > 1 {
		s.printf("\n_Averaging percentiles does not give a percentile of all requests: these means summarise " +
			"the iterations; each row of the table above is exact._\n")
	}
	s.printf("\n")
}

// littlesLaw shows that closed-loop latency restates throughput: with every
// worker always busy, mean latency ≈ concurrency / throughput. The
// hand-written reports compared such latencies as if they were service
// times.
// When the round trip is most of the latency (overPath), the workers wait
// on the path rather than in a queue, and the words say so.
func (s *summaryWriter) littlesLaw(means []float64, thr float64, overPath bool) {
	c := s.run.Plan.Load.Concurrency
	if c <= 0 || thr <= 0 || len(means) == 0 {
		return
	}
	predicted := float64(c) / thr * 1000
	why := "latency here is mostly the queue the workers build, set by capacity — compare throughput between closed-loop runs"
	if overPath {
		why = "latency here is mostly the network round trip the workers wait on, not a queue — " +
			"compare throughput only between runs from the same client position"
	}
	s.item("Closed-Loop Check", "%d workers / %s = %s predicted mean latency (Little's law), %s measured: %s",
		c, fmtRPS(thr), fmtLatency(predicted), fmtLatency(describe(means).Mean), why)
}

// roundTrip splits P50 into the network path and the stack's own time,
// naming what measured the path.
func (s *summaryWriter) roundTrip(p analyze.PathSplit) {
	s.item("Network Round Trip", "~%s of the median %s (%s), by %s; the stack's own time ~%s",
		fmtLatency(p.RoundTripMs), fmtLatency(p.P50Ms), fmtFraction(p.Share), measureName(p), fmtLatency(p.ServiceMs))
}

// measureName says which of the engine's phases (or the lab's setting)
// the round trip came from.
func measureName(p analyze.PathSplit) string {
	var m string
	switch p.Measure {
	case analyze.MeasureConnect:
		m = "the fastest TCP connect (" + fmtLatency(p.MeasureMs) + ")"
	case analyze.MeasureTLS:
		m = "the fastest TLS handshake (" + fmtLatency(p.MeasureMs) + ", one round trip in TLS 1.3)"
	default:
		m = "the delay set on the lab's client link (" + fmtLatency(p.MeasureMs) + ", no handshake timed)"
	}
	if p.Capped {
		m += ", capped at the fastest request"
	}
	return m
}

// stability reports how much P95 and throughput moved between iterations.
func (s *summaryWriter) stability(rs []results.Result) {
	s.heading(3, "Performance Stability")
	if len(rs) < 2 {
		s.printf("Stability needs ≥ 2 iterations; this target has %d.\n\n", len(rs))
		return
	}
	var p95, thr []float64
	for _, r := range rs {
		if measured(r.Latency) {
			p95 = append(p95, r.Latency.P95)
		}
		thr = append(thr, r.ThroughputRPS)
	}
	s.printf("| Metric | Mean | Stddev | CV | Range | Verdict |\n")
	s.printf("|--------|------|--------|----|-------|---------|\n")
	pv := s.stabilityRow("P95", describe(p95), fmtLatency)
	tv := s.stabilityRow("Throughput", describe(thr), fmtRPS)
	s.printf("\nAcross %d iterations — P95: %s; throughput: %s. "+
		"CV = sample stddev / mean: < 5%% stable, 5–10%% moderate variation, > 10%% unstable.\n\n", len(rs), pv, tv)
}

// stabilityRow writes one table row and returns the verdict in words.
func (s *summaryWriter) stabilityRow(name string, st analyze.Variation, f func(float64) string) string {
	cv, ok := st.CV()
	if !ok {
		verdict := "not measured"
		if st.N >= 2 {
			verdict = "undefined (zero mean)"
		}
		s.printf("| %s | %s | %s | n/a | %s | %s |\n", name, meanOrNA(st, f), sdOrNA(st, f), rangeOrNA(st, f), verdict)
		return verdict
	}
	verdict := stabilityWord(cv)
	s.printf("| %s | %s | %s | %s | %s | %s |\n", name, f(st.Mean), f(st.SD), fmtFraction(cv), rangeOrNA(st, f), verdict)
	return fmt.Sprintf("%s (CV %s)", verdict, fmtFraction(cv))
}

func meanOrNA(st analyze.Variation, f func(float64) string) string {
	if st.N == 0 {
		return "n/a"
	}
	return f(st.Mean)
}

func sdOrNA(st analyze.Variation, f func(float64) string) string {
	if st.N < 2 {
		return "n/a"
	}
	return f(st.SD)
}

func rangeOrNA(st analyze.Variation, f func(float64) string) string {
	if st.N == 0 {
		return "n/a"
	}
	return fmtRange(st.Min, st.Max, f)
}
