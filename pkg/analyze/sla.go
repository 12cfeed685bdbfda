package analyze

import (
	"math"

	"github.com/authbench/authbench/pkg/results"
)

// SLAMargin is the headroom suggested SLA targets keep over the worst
// iteration, as the migration reports' authors did by hand ("P95 < 100 ms,
// significant margin over 55 ms observed").
const SLAMargin = 1.5

// SLASuggestion is a suggested latency objective per percentile, from the
// worst iteration, in milliseconds.
type SLASuggestion struct {
	// Margin is SLAMargin.
	Margin float64
	// Worst are the worst iteration's P50, P95 and P99.
	Worst [3]float64
	// Target are Worst times Margin, rounded up by NiceCeil.
	Target [3]float64
}

// SuggestSLA suggests objectives from the worst of rs (successful
// iterations) at P50, P95 and P99.
func SuggestSLA(rs []results.Result) SLASuggestion {
	s := SLASuggestion{Margin: SLAMargin}
	for _, r := range rs {
		for i, v := range []float64{r.Latency.P50, r.Latency.P95, r.Latency.P99} {
			s.Worst[i] = math.Max(s.Worst[i], v)
		}
	}
	for i, w := range s.Worst {
		s.Target[i] = NiceCeil(w * SLAMargin)
	}
	return s
}

// NiceCeil rounds up to 1, 2 or 5 times a power of ten, so that a target
// reads like one a person would set (80 ms -> 100 ms).
func NiceCeil(v float64) float64 {
	if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}
