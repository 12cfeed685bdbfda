package analyze

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// CapacityFile is where a capacity run keeps its searches (pkg/capacity's
// File; that package imports this one, so the name is repeated here).
const CapacityFile = "capacity.json"

// CapacitySearch is what the history reads of one target's search in a
// capacity run's CapacityFile (pkg/capacity's Result writes more).
type CapacitySearch struct {
	Target    string         `json:"target"`
	SLO       plan.SLO       `json:"slo"`
	Capacity  float64        `json:"capacity_rps"`
	FirstFail float64        `json:"first_fail_rps,omitempty"`
	Sustained float64        `json:"sustained_rps,omitempty"`
	Steps     []CapacityStep `json:"steps"`
}

// CapacityStep is one step of a search: its Result in run.json has N as
// its Iteration.
type CapacityStep struct {
	N       int     `json:"step"`
	Offered float64 `json:"offered_rps"`
	Pass    bool    `json:"pass"`
}

// AtCapacity reports whether step n passed at the capacity found: the
// steps a capacity run's history row describes.
func (s CapacitySearch) AtCapacity(n int) bool {
	for _, st := range s.Steps {
		if st.N == n {
			return st.Pass && s.Capacity > 0 && st.Offered == s.Capacity
		}
	}
	return false
}

// CapacityRow is a capacity run's history row for one target: a curve is
// not a series of iterations of one load, so the row stands for the
// capacity found. Throughput is the capacity (offered req/s); requests,
// success and latency are those of the passing steps at it (at), with
// merged the percentiles of their histograms merged (nil: none). Rate is
// cleared: it was each step's, not the run's.
func CapacityRow(base results.HistoryRow, s CapacitySearch, at []results.Result, merged *results.Latency) results.HistoryRow {
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
func CapacityPoint(p HistoryPoint, run *results.Run, s CapacitySearch, hs []*hdrhistogram.Histogram) HistoryPoint {
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
