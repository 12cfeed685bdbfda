package analyze

import "math"

// StableCV is the coefficient of variation (stddev / mean) across
// iterations below which a metric is stable; up to InstabilityCV it
// varies moderately, above it is unstable. They make explicit the wording
// the performance team used by hand ("consistent", "variance").
const StableCV = 0.05

// Stability grades a coefficient of variation across iterations.
type Stability int

// Stability grades, from StableCV and InstabilityCV.
const (
	Stable Stability = iota
	ModerateVariation
	Unstable
)

// StabilityOf grades a coefficient of variation.
func StabilityOf(cv float64) Stability {
	switch {
	case cv < StableCV:
		return Stable
	case cv <= InstabilityCV:
		return ModerateVariation
	}
	return Unstable
}

// Variation describes one metric across iterations.
type Variation struct {
	N    int
	Mean float64
	// SD is the sample (n-1) standard deviation: iterations are a sample
	// of possible runs. 0 with fewer than two values.
	SD       float64
	Min, Max float64
}

// Describe computes the variation of xs.
func Describe(xs []float64) Variation {
	s := Variation{N: len(xs)}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = xs[0], xs[0]
	sum := 0.0
	for _, x := range xs {
		sum += x
		s.Min = min(s.Min, x)
		s.Max = max(s.Max, x)
	}
	s.Mean = sum / float64(s.N)
	if s.N < 2 {
		return s
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	return s
}

// CV is the coefficient of variation; ok is false when it is undefined
// (fewer than two values, or a zero mean).
func (s Variation) CV() (cv float64, ok bool) {
	if s.N < 2 || s.Mean == 0 {
		return 0, false
	}
	return s.SD / math.Abs(s.Mean), true
}

// coefVar is CV with 0 where it is undefined.
func coefVar(xs []float64) float64 {
	cv, _ := Describe(xs).CV()
	return cv
}
