package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// TrendMetric is a figure of a history row that change detection follows.
type TrendMetric string

// TrendMetrics change detection knows.
const (
	TrendP50        TrendMetric = "p50"
	TrendP95        TrendMetric = "p95"
	TrendP99        TrendMetric = "p99"
	TrendThroughput TrendMetric = "throughput"
	TrendSuccess    TrendMetric = "success"
)

// TrendMetrics lists every TrendMetric, in report order.
var TrendMetrics = []TrendMetric{TrendP50, TrendP95, TrendP99, TrendThroughput, TrendSuccess}

// ParseTrendMetric checks a metric name.
func ParseTrendMetric(s string) (TrendMetric, error) {
	m := TrendMetric(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(TrendMetrics, m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown metric %q: want one of p50, p95, p99, throughput, success", s)
}

// HigherIsWorse is true for latencies, false for throughput and success.
func (m TrendMetric) HigherIsWorse() bool {
	return m == TrendP50 || m == TrendP95 || m == TrendP99
}

// Unit is the metric's unit for reports.
func (m TrendMetric) Unit() string {
	switch m {
	case TrendThroughput:
		return "req/s"
	case TrendSuccess:
		return "%"
	}
	return "ms"
}

// Value reads the metric from a history row: merged-histogram
// percentiles when the run has them (exact), else the iterations' mean.
// ok is false when the row did not measure it.
func (m TrendMetric) Value(r results.HistoryRow) (float64, bool) {
	pick := func(merged, iter *float64) (float64, bool) {
		if merged != nil {
			return *merged, true
		}
		if iter != nil {
			return *iter, true
		}
		return 0, false
	}
	switch m {
	case TrendP50:
		return pick(r.P50Merged, r.P50)
	case TrendP95:
		return pick(r.P95Merged, r.P95)
	case TrendP99:
		return pick(r.P99Merged, r.P99)
	case TrendThroughput:
		return r.Throughput, r.Requests > 0
	case TrendSuccess:
		return 100 * r.SuccessRate, r.Requests > 0
	}
	return 0, false
}

// HistoryPoint is one target of one run with what comparability needs
// beyond the history row: the backend fingerprint.
type HistoryPoint struct {
	Row results.HistoryRow `json:"row"`
	// Fingerprint is nil when the run recorded none.
	Fingerprint *results.TargetFingerprint `json:"fingerprint,omitempty"`
	// Kind is the run's (results.Run.Kind): "" for a load's iterations,
	// results.KindCapacity for a capacity search, whose row is the
	// capacity found (CapacityRow) and whose SLO is the search's.
	Kind string    `json:"kind,omitempty"`
	SLO  *plan.SLO `json:"slo,omitempty"`
}

// IsCapacity reports whether the point is a capacity search's.
func (p HistoryPoint) IsCapacity() bool { return p.Kind == results.KindCapacity }

// side turns a point into the minimal Side compare's comparability
// checks read, so that regressions and compare agree on what is alike.
func (p HistoryPoint) side() *Side {
	label := p.Row.RunName
	switch {
	case label == "":
		label = p.Row.RunID
	case !p.Row.Start.IsZero():
		label += " of " + p.Row.Start.UTC().Format("2006-01-02 15:04")
	default:
		label += " (" + p.Row.RunID + ")"
	}
	return &Side{
		Label: label, RunName: p.Row.RunName, RunID: p.Row.RunID, Target: p.Row.Target,
		Run:   &results.Run{Name: p.Row.RunName, ID: p.Row.RunID, Start: p.Row.Start},
		Model: plan.Model(p.Row.Model), Concurrency: p.Row.Concurrency, Rate: p.Row.Rate,
		Fingerprint: p.Fingerprint,
	}
}

// incomparable returns why b cannot be compared with a: compare's
// warnings about the backend, load model, concurrency and rate.
func incomparable(a, b HistoryPoint) []string {
	var why []string
	if a.Kind != b.Kind {
		return []string{"One is a capacity search, the other a load run."}
	}
	if a.IsCapacity() && a.SLO != nil && b.SLO != nil && *a.SLO != *b.SLO {
		why = append(why, "Different SLO for the capacity search.")
	}
	for _, c := range pairChecks(a.side(), b.side(), true) {
		if c.warn {
			why = append(why, c.msg)
		}
	}
	return why
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
