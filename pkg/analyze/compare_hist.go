package analyze

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// Where headline latencies come from.
const (
	SourceMerged     = "merged histograms"
	SourceIterations = "mean of iterations"
)

// Histogram is one .hlog read back: all its intervals merged.
type Histogram struct {
	Target    string
	Iteration int
	H         *hdrhistogram.Histogram
	// PerMs converts H's values to milliseconds (value / PerMs).
	PerMs float64
}

// Histograms pairs a run's histograms (index for index with its Results,
// nil where there is none, as store.ReadHistograms returns them) with
// their targets and units.
func Histograms(run *results.Run, hs []*hdrhistogram.Histogram) []Histogram {
	var out []Histogram
	for i, r := range run.Results {
		if i < len(hs) && hs[i] != nil {
			out = append(out, Histogram{Target: r.Target, Iteration: r.Iteration, H: hs[i], PerMs: UnitsPerMs(hs[i], r.Latency)})
		}
	}
	return out
}

// UnitsPerMs infers the histogram's unit by comparing its median with the
// P50 run.json recorded: the .hlog format carries no unit. Microseconds
// (the engine's unit) unless the figures say otherwise.
func UnitsPerMs(h *hdrhistogram.Histogram, lat results.Latency) float64 {
	ref, got := lat.P50, float64(h.ValueAtQuantile(50))
	if ref <= 0 || got <= 0 {
		ref, got = lat.Max, float64(h.Max())
	}
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

// RunFiles is what a run directory holds beside run.json, read by the
// caller (store.ReadHistograms, store.ReadTimeline) for Compare.
type RunFiles struct {
	// Dir is the run directory, for the record.
	Dir string
	// Hists are the per-result histograms, index for index with the
	// run's Results (nil where there is none).
	Hists []*hdrhistogram.Histogram
	// Timeline is the run's timeline (nil: none).
	Timeline *results.Timeline
}

// attachFiles attaches the side's histograms and timeline. Missing ones
// are normal (imported runs have neither).
func attachFiles(s *Side, run *results.Run, f RunFiles) {
	s.Dir = f.Dir
	for i, r := range run.Results {
		if r.Target != s.Target {
			continue
		}
		var h *hdrhistogram.Histogram
		if i < len(f.Hists) {
			h = f.Hists[i]
		}
		s.IterHists = append(s.IterHists, h)
		if h != nil && s.HistPerMs == 0 {
			s.HistPerMs = UnitsPerMs(h, r.Latency)
		}
	}
	s.Hist = mergeAll(s.IterHists)
	if f.Timeline == nil {
		return
	}
	for _, ser := range f.Timeline.Series {
		if ser.Target == s.Target {
			s.Timeline = append(s.Timeline, ser)
		}
	}
}

// mergeAll merges histograms; nil unless every one is present, because a
// merged distribution missing an iteration would misrepresent the side.
func mergeAll(hs []*hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if len(hs) == 0 {
		return nil
	}
	var m *hdrhistogram.Histogram
	for _, h := range hs {
		if h == nil {
			return nil
		}
		if m == nil {
			m = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		m.Merge(h)
	}
	return m
}

// histLatency is the side's merged distribution in milliseconds.
func histLatency(h *hdrhistogram.Histogram, perMs float64) results.Latency {
	q := func(p float64) float64 { return float64(h.ValueAtQuantile(p)) / perMs }
	return results.Latency{
		Min: float64(h.Min()) / perMs, Mean: h.Mean() / perMs, Stddev: h.StdDev() / perMs,
		P50: q(50), P75: q(75), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9), P9999: q(99.99),
		Max: float64(h.Max()) / perMs,
	}
}

// chooseLatencySource uses merged histograms only when every side has
// them, and then replaces each side's headline latency with them.
func chooseLatencySource(sides []*Side) string {
	for _, s := range sides {
		if !s.HasHistogram() {
			return SourceIterations
		}
	}
	for _, s := range sides {
		s.Latency = histLatency(s.Hist, s.HistPerMs)
	}
	return SourceMerged
}

// Spectrum is a percentile spectrum in HdrHistogram's style: latency at
// quantiles approaching 1, for plotting on a 1/(1-q) log axis.
type Spectrum struct {
	Quantiles []float64 // in [0,1)
	ValuesMs  []float64
}

// PercentileSpectrum samples h at quantiles from 0 to 1 - 10^-depth, ten
// points per decade of 1/(1-q), plus the max at the deepest point.
func PercentileSpectrum(h *hdrhistogram.Histogram, perMs float64) Spectrum {
	var sp Spectrum
	if h == nil || h.TotalCount() == 0 {
		return sp
	}
	depth := math.Min(6, math.Log10(float64(h.TotalCount())))
	for i := 0; float64(i) <= depth*10; i++ {
		q := 1 - math.Pow(10, -float64(i)/10)
		sp.Quantiles = append(sp.Quantiles, q)
		sp.ValuesMs = append(sp.ValuesMs, float64(h.ValueAtQuantile(q*100))/perMs)
	}
	return sp
}
