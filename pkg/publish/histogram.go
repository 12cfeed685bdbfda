package publish

import (
	"errors"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// EncodeHistogram encodes h as HdrHistogram V2 compressed, base64: the
// form every HdrHistogram implementation (Java, Go, Python...) decodes.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	return string(b), err
}

// DecodeHistogram reverses EncodeHistogram.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding histogram: %w", err)
	}
	return h, nil
}

// Merged is the exact merge of documents' histograms.
type Merged struct {
	H *hdrhistogram.Histogram
	// PerMs converts H's values to milliseconds.
	PerMs float64
}

// Latency is the merged distribution in milliseconds.
func (m Merged) Latency() results.Latency {
	h, per := m.H, m.PerMs
	q := func(p float64) float64 { return float64(h.ValueAtQuantile(p)) / per }
	return results.Latency{
		Min: float64(h.Min()) / per, Mean: h.Mean() / per, Stddev: h.StdDev() / per,
		P50: q(50), P75: q(75), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9), P9999: q(99.99),
		Max: float64(h.Max()) / per,
	}
}

// ErrNoHistogram is returned when a document to merge carries none.
var ErrNoHistogram = errors.New("document has no histogram")

// MergeHistograms merges the documents' histograms exactly, as if every
// request had been recorded in one histogram. Documents must share a unit
// (all authbench runs record microseconds); a document without a
// histogram is an error rather than silently left out.
func MergeHistograms(docs []Document) (Merged, error) {
	var m Merged
	for _, d := range docs {
		if d.Histogram == "" {
			return Merged{}, fmt.Errorf("merging %s/%s iteration %d: %w", d.RunID, d.Target, d.Iteration, ErrNoHistogram)
		}
		h, err := DecodeHistogram(d.Histogram)
		if err != nil {
			return Merged{}, fmt.Errorf("merging %s/%s iteration %d: %w", d.RunID, d.Target, d.Iteration, err)
		}
		if m.H == nil {
			m.H = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
			m.PerMs = d.HistogramPerMs
		} else if d.HistogramPerMs != m.PerMs {
			return Merged{}, fmt.Errorf("merging %s/%s iteration %d: unit %g per ms differs from %g", d.RunID, d.Target, d.Iteration, d.HistogramPerMs, m.PerMs)
		}
		if dropped := m.H.Merge(h); dropped > 0 {
			return Merged{}, fmt.Errorf("merging %s/%s iteration %d: %d values out of range", d.RunID, d.Target, d.Iteration, dropped)
		}
	}
	if m.H == nil {
		return Merged{}, errors.New("merging histograms: no document")
	}
	if m.PerMs <= 0 {
		m.PerMs = 1000
	}
	return m, nil
}
