package pods

import (
	"bytes"
	"io"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// fakePod makes a pod's phase: secs seconds, each with n latencies
// of base µs plus a spread, and its end line.
func fakePod(start time.Time, secs, n int, base int64, union *hdr.Histogram) *podPhase {
	pp := &podPhase{start: start}
	var series []results.Point
	var total int64
	for s := range secs {
		h := load.NewHistogram()
		for k := range n {
			v := base + int64(k%100)*base/10
			h.RecordValue(v)
			union.RecordValue(v)
		}
		from := start.Add(time.Duration(s) * time.Second)
		pp.intervals = append(pp.intervals, interval{from, from.Add(time.Second), h})
		series = append(series, results.Point{T: float64(s), Requests: int64(n)})
		total += int64(n)
	}
	lat := results.Latency{Min: float64(base) / 1e3, Max: float64(base+99*base/10) / 1e3, Mean: float64(base) / 1e3 * 5.95}
	pp.end = &Line{Kind: KindEnd, Series: series, Result: &results.Result{Start: start, End: start.Add(time.Duration(secs) * time.Second),
		Requests: total, Successes: total, Latency: lat, Status: map[string]int64{"200": total}}}
	return pp
}

func TestMergeIsExact(t *testing.T) {
	start := time.Unix(1700000000, 0)
	union := load.NewHistogram()
	// A slow pod and two fast ones: averaging their p99s would be far
	// from the p99 of all requests.
	got := []*podPhase{
		fakePod(start, 3, 1000, 100, union),
		fakePod(start.Add(3*time.Millisecond), 3, 1000, 120, union),
		fakePod(start.Add(time.Millisecond), 3, 500, 5000, union),
	}
	e := &Executor{o: Options{Execution: plan.Execution{Pods: 3}, Log: io.Discard}, pods: []*podState{{ready: true}, {ready: true}, {ready: true}}, events: make(chan event)}
	p := Phase{Start: start, Shares: make([]Share, 3)}
	var hlog bytes.Buffer
	m, err := e.merge(p, runner.Phase{Spec: load.Spec{Model: plan.Closed}, HistogramLog: &hlog}, got, false)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Result
	if r.Requests != 7500 || m.Histogram.TotalCount() != 7500 || m.Partial {
		t.Fatalf("requests %d, histogram %d, partial %v; want 7500, 7500, false", r.Requests, m.Histogram.TotalCount(), m.Partial)
	}
	if want := float64(union.ValueAtQuantile(99)) / 1e3; r.Latency.P99 != want {
		t.Errorf("merged p99 %.3f ms, the union's %.3f ms", r.Latency.P99, want)
	}
	if len(m.Series) != 3 || m.Series[0].Requests != 2500 {
		t.Errorf("timeline %+v: want 3 seconds of 2500", m.Series)
	}
	var logged int64
	rd := hdr.NewHistogramLogReader(&hlog)
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil || h == nil {
			break
		}
		logged += h.TotalCount()
	}
	if logged != 7500 {
		t.Errorf("the merged .hlog holds %d, want 7500", logged)
	}
	if r.Pods.Completed != 3 || r.Pods.StartSpreadMs != 3 {
		t.Errorf("pods %+v", r.Pods)
	}
}

func TestMergeKeepsHealthyPodsOfAPartialPhase(t *testing.T) {
	start := time.Unix(1700000000, 0)
	union := load.NewHistogram()
	healthy := fakePod(start, 2, 100, 100, union)
	dead := fakePod(start, 1, 40, 100, load.NewHistogram())
	dead.end = nil
	e := &Executor{o: Options{Execution: plan.Execution{Pods: 2}, Log: io.Discard}, pods: []*podState{{ready: true}, {ready: true, gone: true, reason: "OOMKilled"}}}
	m, _ := e.merge(Phase{Start: start, Shares: make([]Share, 2)}, runner.Phase{}, []*podPhase{healthy, dead}, false)
	pe := m.Result.Pods
	if !m.Partial || m.Result.Requests != 200 || pe.Coverage.Pods != 1 || pe.Coverage.Seconds != 1 {
		t.Errorf("partial %v, requests %d, coverage %+v; want true, 200, 1 pod over 1 s", m.Partial, m.Result.Requests, pe.Coverage)
	}
	if pe.Pods[1].State != results.PodFailed || pe.Pods[1].Requests != 40 {
		t.Errorf("dead pod row %+v: want failed with its 40 requests", pe.Pods[1])
	}
}
