package load

import (
	"math"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Metrics is what one attack measured.
type Metrics struct {
	spec     Spec
	start    time.Time
	end      time.Time
	dur      time.Duration // monotonic
	tot      totals
	hist     *hdr.Histogram
	uhist    *hdr.Histogram
	lag      *hdr.Histogram
	series   []results.Point
	stages   []*stageMetrics
	partial  bool
	achieved float64
	unsent   int64
	logErr   error
	err      error
	path     IOPath
}

func newMetrics(s Spec) *Metrics {
	return &Metrics{spec: s, tot: newTotals(), hist: hdr.New(histMin, histMax, histDigits)}
}

func (m *Metrics) fill(at *attack, c *collector, end int64) {
	m.start, m.end, m.dur = wall(at.start).Round(0), wall(end).Round(0), time.Duration(end-at.start)
	for _, w := range at.workers {
		m.tot.merge(&w.tot)
	}
	m.hist, m.uhist, m.lag, m.series = c.total, c.utotal, c.lag, c.series
	m.partial = at.interrupted.Load()
	m.path = at.path
	if at.ringRefused.Load() {
		m.path = IOEpoll // a loop was refused its ring after the probe allowed one
	}
	m.stages = at.stageMetrics(end, m.partial)
	if c.hlog != nil {
		m.logErr = c.hlog.err
	}
	if at.open {
		if sent := m.tot.sent; sent >= 2 && m.tot.lastSend > at.start {
			m.achieved = float64(sent-1) / (float64(m.tot.lastSend-at.start) / 1e9)
		}
		if at.end > 0 && !m.partial {
			m.unsent = max(at.scheduled()-m.tot.sent, 0)
		}
	}
}

// IOPath is the I/O path the attack ran on.
func (m *Metrics) IOPath() IOPath { return m.path }

// Result summarises the attack. Target, Iteration, HistogramFile and
// Components are left to the caller.
//
//   - Requests counts completed requests, answered or failed; Successes
//     those answered with HTTP < 400.
//   - ThroughputRPS is completed requests per second of the attack, as
//     hey's Requests/sec (Little's law holds for it); GoodputRPS counts
//     successes only (a storm of fast 401s is not goodput).
//   - Latency covers answered requests (any status) and, in the open model,
//     runs from each request's intended send time; LatencyUncorrected from
//     its actual send.
//   - AchievedRPS is the send rate actually reached: (sent-1) over the time
//     from the start to the last send. LateSends counts requests sent more
//     than 1 ms after their intended time; SendLag is the distribution of
//     actual minus intended send time, the generator's own noise floor.
func (m *Metrics) Result() results.Result {
	t := &m.tot
	r := results.Result{
		Model:     m.spec.model(),
		Start:     m.start,
		End:       m.end,
		Requests:  t.requests,
		Successes: t.successes,
		DurationS: m.dur.Seconds(),
		Latency:   latency(m.hist, t.lat),
		Status:    map[string]int64{},
		Errors:    map[string]int64{},
		Phases:    t.phases.result(),
		IOPath:    string(m.path),
	}
	if t.requests > 0 {
		r.SuccessRate = float64(t.successes) / float64(t.requests)
	}
	if r.DurationS > 0 {
		r.ThroughputRPS = float64(t.requests) / r.DurationS
		r.GoodputRPS = float64(t.successes) / r.DurationS
	}
	for _, c := range t.status {
		r.Status[strconv.Itoa(c.code)] = c.n
	}
	for k, v := range t.errors {
		r.Errors[k] = v
	}
	for i, n := range t.answers {
		if n > 0 {
			if r.Answers == nil {
				r.Answers = map[string]int64{}
			}
			r.Answers[answerNames[i]] = n
		}
	}
	if len(t.samples) > 0 {
		r.ErrorSamples = map[string]string{}
		for k, v := range t.samples {
			r.ErrorSamples[k] = v
		}
	}
	if m.spec.model() == plan.Open {
		u := latency(m.uhist, t.ulat)
		achieved, late := finite(m.achieved), t.late
		r.LatencyUncorrected, r.TargetRPS, r.AchievedRPS, r.LateSends = &u, m.spec.targetRPS(), &achieved, &late
		r.SendLag = m.sendLag()
		if m.unsent > 0 {
			unsent := m.unsent
			r.Unsent = &unsent
		}
	}
	for _, sm := range m.stages {
		r.Stages = append(r.Stages, sm.result(m, m.partial))
	}
	return r
}

// sendLag summarises the open model's send lag; nil when nothing was sent.
func (m *Metrics) sendLag() *results.Lag {
	if m.lag == nil || m.lag.TotalCount() == 0 {
		return nil
	}
	hi := ms(float64(max(m.tot.maxLag, 0)))
	return &results.Lag{
		P50Ms: min(msFromMicros(m.lag.ValueAtQuantile(50)), hi),
		P99Ms: min(msFromMicros(m.lag.ValueAtQuantile(99)), hi),
		MaxMs: hi,
	}
}

// SendLagHistogram is the open model's send lag (actual minus intended send
// time) in microseconds; nil in the closed model.
func (m *Metrics) SendLagHistogram() *hdr.Histogram { return m.lag }

// quantiles are the percentiles reported, in Latency's field order.
var quantiles = [...]float64{50, 75, 90, 95, 99, 99.9, 99.99}

// latency reads percentiles from the histogram (µs) and min, mean and max
// from the exact stats (ns). Percentiles are clamped into [min, max]: a
// bucket's upper edge can exceed the largest value actually seen.
func latency(h *hdr.Histogram, s latStat) results.Latency {
	if h == nil || s.n == 0 {
		return results.Latency{}
	}
	lo, hi := ms(float64(s.min)), ms(float64(s.max))
	var p [len(quantiles)]float64
	for i, q := range quantiles {
		p[i] = min(max(msFromMicros(h.ValueAtQuantile(q)), lo), hi)
	}
	return results.Latency{
		Min: lo, Mean: finite(ms(s.sum / float64(s.n))), Stddev: finite(h.StdDev() / 1e3),
		P50: p[0], P75: p[1], P90: p[2], P95: p[3], P99: p[4], P999: p[5], P9999: p[6],
		Max: hi,
	}
}

// finite turns NaN and ±Inf, which JSON cannot encode, into 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// Series is the per-second timeline. Requests are counted in the second
// they completed; p50 and p99 are of the corrected latency.
func (m *Metrics) Series() []results.Point { return m.series }

// Histogram is the merged corrected latency histogram in microseconds.
func (m *Metrics) Histogram() *hdr.Histogram { return m.hist }

// UncorrectedHistogram is the open model's latency from actual send, in
// microseconds; nil in the closed model.
func (m *Metrics) UncorrectedHistogram() *hdr.Histogram { return m.uhist }

// Partial reports that ctx was cancelled before the attack finished.
func (m *Metrics) Partial() bool { return m.partial }

// Unsent counts requests of a timed open attack that were due before its end
// but never sent because every worker was busy: the backlog of a target
// slower than the rate. Zero otherwise.
func (m *Metrics) Unsent() int64 { return m.unsent }

// Err is why requests could not even be built (a bad URL or header); every
// request then failed with it. Nil normally.
func (m *Metrics) Err() error { return m.err }

// LogErr is the first error writing the histogram log, if any.
func (m *Metrics) LogErr() error { return m.logErr }
