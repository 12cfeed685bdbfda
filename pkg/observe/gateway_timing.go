package observe

import (
	"math"

	"github.com/authbench/authbench/pkg/results"
)

// timingWindow is one timed path over a window: the difference of two
// cumulative histograms, or (without one) the request count's difference
// and the running mean at the window's end. Nil when nothing was timed.
func timingWindow(before, after Timing) *results.GatewayTiming {
	if after.Hist == nil {
		n := counterDelta(after.Count, before.Count)
		if n <= 0 && after.MeanMs == 0 {
			return nil
		}
		return &results.GatewayTiming{Name: after.Name, Count: n, MeanMs: after.MeanMs}
	}
	d, ok := histDelta(before.Hist, after.Hist)
	if !ok || d.Count() <= 0 {
		return nil
	}
	return &results.GatewayTiming{
		Name: after.Name, Count: int64(math.Round(d.Count())), MeanMs: d.Sum / d.Count(),
		P50: d.quantileBucket(0.50), P90: d.quantileBucket(0.90), P99: d.quantileBucket(0.99),
	}
}

// histDelta is after minus before, bucket by bucket. A histogram that
// went down was reset, and after is then the window's; histograms of
// different bounds cannot be subtracted.
func histDelta(before, after *Histogram) (Histogram, bool) {
	if before == nil || len(before.Cum) == 0 {
		return *after, true
	}
	if len(before.Bounds) != len(after.Bounds) {
		return Histogram{}, false
	}
	d := Histogram{Bounds: after.Bounds, Cum: make([]float64, len(after.Cum)), Sum: after.Sum - before.Sum}
	for i := range after.Cum {
		if before.Bounds != nil && i < len(after.Bounds) && before.Bounds[i] != after.Bounds[i] {
			return Histogram{}, false
		}
		d.Cum[i] = after.Cum[i] - before.Cum[i]
		if d.Cum[i] < 0 || (i > 0 && d.Cum[i] < d.Cum[i-1]) {
			return *after, true
		}
	}
	return d, true
}

// quantileBucket is the bucket holding quantile q: the first whose
// cumulative count reaches q of the total.
func (h Histogram) quantileBucket(q float64) *results.Bucket {
	total := h.Count()
	if total <= 0 {
		return nil
	}
	rank := q * total
	for i, c := range h.Cum {
		if c < rank {
			continue
		}
		low := 0.0
		if i > 0 {
			low = h.Bounds[i-1]
		}
		if i == len(h.Bounds) {
			return &results.Bucket{LowMs: low, Open: true}
		}
		return &results.Bucket{LowMs: low, HighMs: h.Bounds[i]}
	}
	return nil
}
