package store

import (
	"database/sql"
	"math"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
)

// targetSummary is one targets row before insertion.
type targetSummary struct {
	Target, URL                              string
	Iterations                               int
	Requests, Successes                      int64
	SuccessRate                              float64
	P50, P95, P99, MeanMs                    sql.NullFloat64
	P50Merged, P95Merged, P99Merged          sql.NullFloat64
	Throughput, ThroughputMin, ThroughputMax float64
}

// summarizeTargets averages each target's iterations, and adds merged
// percentiles when every iteration has a readable .hlog.
func summarizeTargets(runDir string, run *results.Run) []targetSummary {
	var order []string
	by := map[string][]results.Result{}
	for _, r := range run.Results {
		if _, ok := by[r.Target]; !ok {
			order = append(order, r.Target)
		}
		by[r.Target] = append(by[r.Target], r)
	}
	var out []targetSummary
	for _, name := range order {
		rs := by[name]
		// The index is a sink like run.json: the URL goes in redacted.
		t := targetSummary{Target: name, URL: redact.URL(targetURL(run, name)), Iterations: len(rs), ThroughputMin: math.Inf(1)}
		for _, r := range rs {
			t.Requests += r.Requests
			t.Successes += r.Successes
			t.Throughput += r.ThroughputRPS / float64(len(rs))
			t.ThroughputMin = min(t.ThroughputMin, r.ThroughputRPS)
			t.ThroughputMax = max(t.ThroughputMax, r.ThroughputRPS)
		}
		if t.Requests > 0 {
			t.SuccessRate = float64(t.Successes) / float64(t.Requests)
		}
		t.P50 = iterMean(rs, "p50", func(l results.Latency) float64 { return l.P50 })
		t.P95 = iterMean(rs, "p95", func(l results.Latency) float64 { return l.P95 })
		t.P99 = iterMean(rs, "p99", func(l results.Latency) float64 { return l.P99 })
		t.MeanMs = iterMean(rs, "mean", func(l results.Latency) float64 { return l.Mean })
		if h, perMs := mergedHistogram(runDir, rs); h != nil {
			q := func(p float64) sql.NullFloat64 {
				return sql.NullFloat64{Float64: float64(h.ValueAtQuantile(p)) / perMs, Valid: true}
			}
			t.P50Merged, t.P95Merged, t.P99Merged = q(50), q(95), q(99)
		}
		out = append(out, t)
	}
	return out
}

func targetURL(run *results.Run, name string) string {
	for _, t := range run.Plan.Targets {
		if t.Name == name {
			return t.URL
		}
	}
	for _, f := range run.Environment.Targets {
		if f.Target == name {
			return f.URL
		}
	}
	return ""
}

// iterMean is the mean of a latency field over iterations, NULL when any
// iteration's source did not measure it.
func iterMean(rs []results.Result, key string, get func(results.Latency) float64) sql.NullFloat64 {
	var sum float64
	for _, r := range rs {
		if slices.Contains(r.Unavailable, key) || r.Requests == 0 {
			return sql.NullFloat64{}
		}
		sum += get(r.Latency)
	}
	if len(rs) == 0 {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: sum / float64(len(rs)), Valid: true}
}

// mergedHistogram merges the iterations' .hlog files; nil unless every
// iteration has one that reads. perMs converts values to milliseconds.
func mergedHistogram(runDir string, rs []results.Result) (*hdrhistogram.Histogram, float64) {
	var merged *hdrhistogram.Histogram
	perMs := 0.0
	for _, r := range rs {
		if r.HistogramFile == "" {
			return nil, 0
		}
		h := readHlog(runDir, r.HistogramFile)
		if h == nil {
			return nil, 0
		}
		if merged == nil {
			merged = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
			perMs = hlogUnitsPerMs(h, r.Latency)
		}
		merged.Merge(h)
	}
	if merged == nil || merged.TotalCount() == 0 {
		return nil, 0
	}
	return merged, perMs
}

// readHlog is ReadHistogramLog, nil if unreadable.
func readHlog(runDir, name string) *hdrhistogram.Histogram {
	h, err := ReadRunHistogram(runDir, name)
	if err != nil {
		return nil
	}
	return h
}

// hlogUnitsPerMs infers the log's unit from run.json's P50, since the
// .hlog format carries none; microseconds unless the figures disagree.
func hlogUnitsPerMs(h *hdrhistogram.Histogram, lat results.Latency) float64 {
	ref, got := lat.P50, float64(h.ValueAtQuantile(50))
	if ref <= 0 || got <= 0 {
		return 1000
	}
	best, bestErr := 1000.0, math.Inf(1)
	for _, c := range []float64{1, 1000, 1e6} {
		if e := math.Abs(math.Log(got/c) - math.Log(ref)); e < bestErr {
			best, bestErr = c, e
		}
	}
	return best
}
