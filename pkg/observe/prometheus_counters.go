package observe

import (
	"context"
	"math"
	"regexp"
	"slices"
	"time"
)

// Why counters are read raw. A range query dates each value by its step,
// not by its scrape: the value at step t is the last scrape at or before t,
// up to one scrape interval older. Differencing those values charges a
// window with load from before its start and drops up to an interval of
// load before its end, so a window that ends when the load stops reads low
// (8-9% on 10 s windows at 1 s scrapes, up to 25% on 5 s ones), and the
// idle baseline takes in the start of the warm-up. A rate() also lags by
// half its interval. So for a counter (CPU seconds, CFS periods) the
// sampler asks for the stored samples themselves, with their scrape times
// (an instant query of selector[range]), and usage.go splits the scrape
// intervals straddling the window's edges. The range query remains for
// gauges, for queries that are not a plain sum of a counter, and when raw
// samples are missing or refused (RangeOnly forces it).

// selectorRE matches a metric name with optional label matchers.
const selectorRE = `[a-zA-Z_:][a-zA-Z0-9_:]*\s*(?:\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})?`

var (
	// sumOfSelector is sum(counter{...}), as in ProcessProfile.
	sumOfSelector = regexp.MustCompile(`^\s*sum\s*\(\s*(` + selectorRE + `)\s*\)\s*$`)
	// sumOfRate is sum(rate(counter{...}[interval])), as in DefaultProfile.
	sumOfRate = regexp.MustCompile(`^\s*sum\s*\(\s*i?rate\s*\(\s*(` + selectorRE + `)\s*\[[^\]]*\]\s*\)\s*\)\s*$`)
)

// counterMetrics are the metrics that are counters, read raw when possible.
var counterMetrics = []string{MetricCPUSeconds, MetricCFSPeriods, MetricCFSThrottledPeriods, MetricCFSThrottledSeconds}

// counterSelector returns the counter a rendered profile entry sums, and
// the metric it fills (a rate of CPU fills MetricCPUSeconds), or "" when
// the query is anything else.
func counterSelector(metricName, query string) (selector, fills string) {
	switch {
	case metricName == MetricCPU:
		if m := sumOfRate.FindStringSubmatch(query); m != nil {
			return m[1], MetricCPUSeconds
		}
	case slices.Contains(counterMetrics, metricName):
		if m := sumOfSelector.FindStringSubmatch(query); m != nil {
			return m[1], metricName
		}
	}
	return "", ""
}

// counterSamples reads a counter's samples around [from, to], each series
// trimmed to the window and two samples either side, and returns their
// sum. The range reaches Margin beyond both edges so that the samples
// bracketing them are included; it is evaluated no later than now, which
// Settle has put past the window's end (two scrape intervals past it give
// the rate after the end too).
func (s *PrometheusSampler) counterSamples(ctx context.Context, selector string, from, to time.Time) ([]sample, error) {
	at := to.Add(s.o.Margin)
	if now := s.now(); now.Before(at) {
		at = now
	}
	if at.Before(to) {
		at = to
	}
	series, err := s.rawSamples(ctx, selector, at, at.Sub(from.Add(-s.o.Margin)))
	if err != nil {
		return nil, err
	}
	for i, ss := range series {
		series[i] = monotonic(trim(ss, from, to))
	}
	return sumSeries(series), nil
}

// trim keeps the samples in [from, to] and two either side of it: one
// brackets the edge, the other gives the rate beyond it (see usage.go).
func trim(ss []sample, from, to time.Time) []sample {
	lo := 0
	for lo+2 < len(ss) && !ss[lo+2].t.After(from) {
		lo++
	}
	hi := len(ss)
	for hi-2 > 0 && !ss[hi-3].t.Before(to) {
		hi--
	}
	return ss[lo:hi]
}

// monotonic undoes counter resets the way Prometheus's rate() does: a
// value below the previous one means the counter restarted from zero (the
// process or container restarted), so all of it is new.
func monotonic(ss []sample) []sample {
	out := make([]sample, len(ss))
	var offset float64
	for i, x := range ss {
		if i > 0 && x.v < ss[i-1].v {
			offset += ss[i-1].v
		}
		out[i] = sample{x.t, x.v + offset}
	}
	return out
}

// sumSeries adds counters up at every time any of them has a sample
// (several pods, or one container's series around a restart). Each is
// interpolated between its samples and held flat outside them, so a
// series that comes or goes adds only what it counted.
func sumSeries(series [][]sample) []sample {
	if len(series) == 1 {
		return series[0]
	}
	var times []time.Time
	for _, ss := range series {
		for _, x := range ss {
			times = append(times, x.t)
		}
	}
	slices.SortFunc(times, time.Time.Compare)
	times = slices.CompactFunc(times, time.Time.Equal)
	out := make([]sample, len(times))
	for i, t := range times {
		out[i].t = t
		for _, ss := range series {
			if len(ss) == 0 {
				continue
			}
			switch v := valueAt(ss, t, true); {
			case known(v):
				out[i].v += v
			case t.Before(ss[0].t):
				out[i].v += ss[0].v
			default:
				out[i].v += ss[len(ss)-1].v
			}
		}
	}
	return out
}

// valueAt is a series' value at t: interpolated linearly between the
// samples either side for a counter, the last at or before t for a gauge
// (held after the last sample). It is NaN before the first sample, and
// after the last for a counter.
func valueAt(ss []sample, t time.Time, counter bool) float64 {
	i, found := slices.BinarySearchFunc(ss, t, func(x sample, t time.Time) int { return x.t.Compare(t) })
	switch {
	case found:
		return ss[i].v
	case i == 0:
		return math.NaN()
	case i == len(ss):
		if counter {
			return math.NaN()
		}
		return ss[i-1].v
	case !counter:
		return ss[i-1].v
	}
	a, b := ss[i-1], ss[i]
	return a.v + (b.v-a.v)*float64(t.Sub(a.t))/float64(b.t.Sub(a.t))
}

// pointFields are the Point fields by the metric that fills them.
var pointFields = map[string]func(*Point) *float64{
	MetricCPUSeconds:          func(p *Point) *float64 { return &p.CPUSeconds },
	MetricMemory:              func(p *Point) *float64 { return &p.MemBytes },
	MetricCFSPeriods:          func(p *Point) *float64 { return &p.Periods },
	MetricCFSThrottledPeriods: func(p *Point) *float64 { return &p.ThrottledPeriods },
	MetricCFSThrottledSeconds: func(p *Point) *float64 { return &p.ThrottledSeconds },
	MetricCPULimit:            func(p *Point) *float64 { return &p.CPULimit },
	MetricMemoryLimit:         func(p *Point) *float64 { return &p.MemLimit },
}

// onScrapes lays the metrics out at the raw counters' sample times. Raw
// counters give their own values; the rest come from the grid, counters
// interpolated between its points and gauges as of the last one.
func onScrapes(grid []Point, raw map[string][]sample) []Point {
	var times []time.Time
	for _, ss := range raw {
		for _, x := range ss {
			times = append(times, x.t)
		}
	}
	slices.SortFunc(times, time.Time.Compare)
	times = slices.CompactFunc(times, time.Time.Equal)
	series := map[string][]sample{}
	for name, field := range pointFields {
		if ss, ok := raw[name]; ok {
			series[name] = ss
			continue
		}
		for _, p := range grid {
			if v := *field(&p); known(v) {
				series[name] = append(series[name], sample{p.Time, v})
			}
		}
	}
	out := make([]Point, len(times))
	for i, t := range times {
		out[i] = unknownPoint(t)
		for name, field := range pointFields {
			*field(&out[i]) = valueAt(series[name], t, slices.Contains(counterMetrics, name))
		}
	}
	return out
}
