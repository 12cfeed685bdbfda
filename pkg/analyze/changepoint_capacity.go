package analyze

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// CapacityRow is a capacity run's history row for one target: a curve is
// not a series of iterations of one load, so the row stands for the
// capacity found. Throughput is the capacity (offered req/s); requests,
// success and latency are those of the passing steps at it (at), with
// merged the percentiles of their histograms merged (nil: none). Rate is
// cleared: it was each step's, not the run's.
func CapacityRow(base results.HistoryRow, s results.CapacitySearch, at []results.Result, merged *results.Latency) results.HistoryRow {
	r := base
	r.Iterations, r.Requests, r.Successes, r.SuccessRate, r.Rate = len(at), 0, 0, 0, 0
	r.P50, r.P95, r.P99, r.MeanMs, r.P50Merged, r.P95Merged, r.P99Merged = nil, nil, nil, nil, nil, nil, nil
	r.Throughput, r.ThroughputMin, r.ThroughputMax = s.Capacity, s.Capacity, s.Capacity
	var sum results.Latency
	measured := len(at) > 0
	for _, x := range at {
		r.Requests += x.Requests
		r.Successes += x.Successes
		sum.P50, sum.P95, sum.P99, sum.Mean = sum.P50+x.Latency.P50, sum.P95+x.Latency.P95, sum.P99+x.Latency.P99, sum.Mean+x.Latency.Mean
		if x.Requests == 0 || len(x.Unavailable) > 0 {
			measured = false
		}
	}
	if r.Requests > 0 {
		r.SuccessRate = float64(r.Successes) / float64(r.Requests)
	}
	if measured {
		n := float64(len(at))
		p50, p95, p99, mean := sum.P50/n, sum.P95/n, sum.P99/n, sum.Mean/n
		r.P50, r.P95, r.P99, r.MeanMs = &p50, &p95, &p99, &mean
	}
	if merged != nil {
		l := *merged
		r.P50Merged, r.P95Merged, r.P99Merged = &l.P50, &l.P95, &l.P99
	}
	return r
}

// CapacityPoint turns a capacity run's store row (which aggregates every
// step) into its capacity row: s is the target's search (zero when the run
// was interrupted before writing it), hs the run's per-result histograms
// in run.Results' order (nil entries where a step has none).
func CapacityPoint(p HistoryPoint, run *results.Run, s results.CapacitySearch, hs []*hdrhistogram.Histogram) HistoryPoint {
	if s.Target == "" {
		s.Target = p.Row.Target
	}
	var at []results.Result
	var ats []*hdrhistogram.Histogram
	for i, r := range run.Results {
		if r.Target == s.Target && s.AtCapacity(r.Iteration) {
			at = append(at, r)
			if i < len(hs) {
				ats = append(ats, hs[i])
			} else {
				ats = append(ats, nil)
			}
		}
	}
	var merged *results.Latency
	if h := mergeAll(ats); h != nil && h.TotalCount() > 0 {
		l := histLatency(h, UnitsPerMs(ats[0], at[0].Latency))
		merged = &l
	}
	p.Kind, p.SLO = results.KindCapacity, &s.SLO
	p.Row = CapacityRow(p.Row, s, at, merged)
	return p
}
