package report

import "github.com/authbench/authbench/pkg/analyze"

// describe is analyze.Describe: the report only words the spread.
func describe(xs []float64) analyze.Variation { return analyze.Describe(xs) }

// stabilityWord names a coefficient of variation's grade (analyze's
// StableCV and InstabilityCV).
func stabilityWord(cv float64) string {
	switch analyze.StabilityOf(cv) {
	case analyze.Stable:
		return "stable"
	case analyze.ModerateVariation:
		return "moderate variation"
	}
	return "unstable"
}
