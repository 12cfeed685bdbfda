package analyze

import (
	"fmt"
	"math"

	"github.com/authbench/authbench/pkg/plan"
)

// SaturationTolerance is how close (relative) the measured mean latency
// must be to concurrency / throughput for Little's law to "hold".
const SaturationTolerance = 0.15

// Saturation is the Little's-law check of a closed-loop side: with N
// workers always busy, mean latency = N / throughput. When it holds, the
// latency measured is queueing time set by capacity.
type Saturation struct {
	Concurrency     int     `json:"concurrency"`
	ThroughputRPS   float64 `json:"throughput_rps"`
	PredictedMeanMs float64 `json:"predicted_mean_ms"`
	MeasuredMeanMs  float64 `json:"measured_mean_ms"`
	Holds           bool    `json:"holds"`
}

func saturation(sides []*Side) []*Saturation {
	out := make([]*Saturation, len(sides))
	for i, s := range sides {
		if s.Model != plan.Closed || s.Concurrency <= 0 || s.Throughput.Mean <= 0 || !s.Measured("mean") || s.Latency.Mean <= 0 {
			continue
		}
		pred := float64(s.Concurrency) / s.Throughput.Mean * 1000
		out[i] = &Saturation{
			Concurrency:     s.Concurrency,
			ThroughputRPS:   s.Throughput.Mean,
			PredictedMeanMs: pred,
			MeasuredMeanMs:  s.Latency.Mean,
			Holds:           math.Abs(s.Latency.Mean-pred) <= SaturationTolerance*pred,
		}
	}
	return out
}

func saturationNotes(sides []*Side, sat []*Saturation) []Warning {
	var out []Warning
	for i, s := range sat {
		if s == nil || !s.Holds {
			continue
		}
		out = append(out, Warning{Kind: "saturation", Message: fmt.Sprintf(
			"%s is a closed-loop saturation test: mean latency %s ≈ %d in flight / %s req/s = %s (Little's law). "+
				"The latency compared is queueing time set by capacity; compare throughput, or rerun open-loop at a rate every side sustains to compare response times.",
			sides[i].Label, FormatMs(s.MeasuredMeanMs), s.Concurrency, FormatRate(s.ThroughputRPS), FormatMs(s.PredictedMeanMs))})
	}
	return out
}
