package report

import "math"

// Stability thresholds on the coefficient of variation (stddev / mean) of a
// metric across iterations. They follow the wording the performance team
// used by hand ("consistent", "variance") made explicit.
const (
	stableCV   = 0.05 // below: stable
	unstableCV = 0.10 // above: unstable; between the two: moderate variation
)

// stats describes one metric across iterations.
type stats struct {
	n        int
	mean, sd float64 // sd is the sample (n-1) stddev: iterations are a sample of possible runs
	min, max float64
}

// describe computes stats for xs; sd is 0 with fewer than two values.
func describe(xs []float64) stats {
	s := stats{n: len(xs)}
	if s.n == 0 {
		return s
	}
	s.min, s.max = xs[0], xs[0]
	sum := 0.0
	for _, x := range xs {
		sum += x
		s.min = min(s.min, x)
		s.max = max(s.max, x)
	}
	s.mean = sum / float64(s.n)
	if s.n < 2 {
		return s
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - s.mean) * (x - s.mean)
	}
	s.sd = math.Sqrt(ss / float64(s.n-1))
	return s
}

// cv is the coefficient of variation; ok is false when it is undefined
// (fewer than two values, or a zero mean).
func (s stats) cv() (cv float64, ok bool) {
	if s.n < 2 || s.mean == 0 {
		return 0, false
	}
	return s.sd / math.Abs(s.mean), true
}

// stabilityWord names a coefficient of variation.
func stabilityWord(cv float64) string {
	switch {
	case cv < stableCV:
		return "stable"
	case cv <= unstableCV:
		return "moderate variation"
	}
	return "unstable"
}
