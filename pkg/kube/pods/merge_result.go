package pods

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// mergeResults merges the pods' results exactly: counts are summed,
// percentiles read from the merged histogram (µs) and clamped into the
// pods' exact [min, max], the mean weighted by answered requests. No
// percentile is ever averaged.
func mergeResults(rs []results.Result, answered []int64, total, utotal *hdr.Histogram) results.Result {
	out := results.Result{Status: map[string]int64{}, Errors: map[string]int64{}}
	if len(rs) == 0 {
		return out
	}
	var lat, ulat []weighted
	var achieved float64
	var late, unsent int64
	open := false
	for i, r := range rs {
		if out.Start.IsZero() || r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.Requests += r.Requests
		out.Successes += r.Successes
		out.IOPath = mergeIOPath(out.IOPath, r.IOPath, i)
		addCounts(out.Status, r.Status)
		addCounts(out.Errors, r.Errors)
		if len(r.Answers) > 0 {
			if out.Answers == nil {
				out.Answers = map[string]int64{}
			}
			addCounts(out.Answers, r.Answers)
		}
		for k, v := range r.ErrorSamples {
			if out.ErrorSamples == nil {
				out.ErrorSamples = map[string]string{}
			}
			out.ErrorSamples[k] = v
		}
		mergePhases(&out.Phases, r.Phases)
		lat = append(lat, weighted{r.Latency, answered[i]})
		if r.LatencyUncorrected != nil {
			open = true
			ulat = append(ulat, weighted{*r.LatencyUncorrected, answered[i]})
		}
		if r.AchievedRPS != nil {
			achieved += *r.AchievedRPS
		}
		if r.LateSends != nil {
			late += *r.LateSends
		}
		if r.Unsent != nil {
			unsent += *r.Unsent
		}
	}
	out.DurationS = out.End.Sub(out.Start).Seconds()
	if out.Requests > 0 {
		out.SuccessRate = float64(out.Successes) / float64(out.Requests)
	}
	if out.DurationS > 0 {
		out.ThroughputRPS = float64(out.Requests) / out.DurationS
		out.GoodputRPS = float64(out.Successes) / out.DurationS
	}
	out.Latency = mergeLatency(lat, total)
	if open {
		u := mergeLatency(ulat, utotal)
		out.LatencyUncorrected, out.AchievedRPS, out.LateSends = &u, &achieved, &late
		if unsent > 0 {
			out.Unsent = &unsent
		}
	}
	return out
}

type weighted struct {
	l results.Latency
	n int64 // answered requests behind l
}

var quantiles = [...]float64{50, 75, 90, 95, 99, 99.9, 99.99}

func mergeLatency(ws []weighted, h *hdr.Histogram) results.Latency {
	var l results.Latency
	var n int64
	var sum float64
	for _, w := range ws {
		if w.n == 0 {
			continue
		}
		if n == 0 || w.l.Min < l.Min {
			l.Min = w.l.Min
		}
		l.Max = math.Max(l.Max, w.l.Max)
		sum += w.l.Mean * float64(w.n)
		n += w.n
	}
	if n == 0 || h == nil || h.TotalCount() == 0 {
		return results.Latency{}
	}
	l.Mean, l.Stddev = sum/float64(n), h.StdDev()/1e3
	var p [len(quantiles)]float64
	for i, q := range quantiles {
		p[i] = math.Min(math.Max(float64(h.ValueAtQuantile(q))/1e3, l.Min), l.Max)
	}
	l.P50, l.P75, l.P90, l.P95, l.P99, l.P999, l.P9999 = p[0], p[1], p[2], p[3], p[4], p[5], p[6]
	return l
}

func addCounts(dst, src map[string]int64) {
	for k, v := range src {
		dst[k] += v
	}
}

func mergePhases(dst *results.Phases, src results.Phases) {
	for _, pr := range []struct{ d, s *results.Phase }{
		{&dst.DNS, &src.DNS}, {&dst.Connect, &src.Connect}, {&dst.TLS, &src.TLS},
		{&dst.Write, &src.Write}, {&dst.Wait, &src.Wait}, {&dst.Read, &src.Read},
	} {
		d, s := pr.d, *pr.s
		if s.Count == 0 {
			continue
		}
		if d.Count == 0 || s.Min < d.Min {
			d.Min = s.Min
		}
		d.Max = math.Max(d.Max, s.Max)
		d.Mean = (d.Mean*float64(d.Count) + s.Mean*float64(s.Count)) / float64(d.Count+s.Count)
		d.Count += s.Count
	}
}

// mergeIOPath is the path every pod's engine ran on, or "mixed".
func mergeIOPath(merged, pod string, i int) string {
	if i == 0 || merged == pod {
		return pod
	}
	return "mixed"
}
