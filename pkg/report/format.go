// Package report renders runs for people: summary.md (Summary), the
// hey-style terminal output (Text, TextResult, Progress), and comparisons.
// Every figure it prints is read from, or computed from, a results.Run field;
// a value the run did not measure is printed as "not measured", never guessed.
package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
)

// notMeasured is printed wherever run.json has no value, so a reader never
// mistakes a missing figure for a zero.
const notMeasured = "not measured"

// finite reports whether v can be printed as a number.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// magnitude is floor(log10(x)) for x > 0, corrected at exact powers of ten
// where math.Log10 may land just below the integer.
func magnitude(x float64) int {
	m := int(math.Floor(math.Log10(x)))
	switch {
	case math.Pow(10, float64(m+1)) <= x:
		m++
	case math.Pow(10, float64(m)) > x:
		m--
	}
	return m
}

// roundSig rounds x to n significant digits.
func roundSig(x float64, n int) float64 {
	if x == 0 || !finite(x) {
		return x
	}
	p := math.Pow(10, float64(n-1-magnitude(math.Abs(x))))
	return math.Round(x*p) / p
}

// fmtSig prints x with n significant digits and never in exponent form,
// which is what people expect in a table ("0.0313", "1.50", "123").
func fmtSig(x float64, n int) string {
	if !finite(x) {
		return notMeasured
	}
	if x == 0 {
		return "0"
	}
	x = roundSig(x, n)
	decimals := max(n-1-magnitude(math.Abs(x)), 0)
	return strconv.FormatFloat(x, 'f', decimals, 64)
}

// fmtLatency prints a latency given in milliseconds with three significant
// digits and the unit that keeps the number between 1 and 999: "850 µs",
// "46.0 ms", "2.97 s". The unit is chosen after rounding so 999.6 ms reads
// "1.00 s", not "1000 ms".
func fmtLatency(ms float64) string {
	if !finite(ms) || ms < 0 {
		return notMeasured
	}
	if ms == 0 {
		return "0 ms"
	}
	v := roundSig(ms, 3)
	switch {
	case v < 1:
		return fmtSig(v*1000, 3) + " µs"
	case v < 1000:
		return fmtSig(v, 3) + " ms"
	}
	return fmtSig(v/1000, 3) + " s"
}

// fmtSecs prints milliseconds as hey does ("0.0049 secs") so the terminal
// output reads like hey's.
func fmtSecs(ms float64) string {
	if !finite(ms) {
		return notMeasured
	}
	return fmt.Sprintf("%4.4f secs", ms/1000)
}

// fmtRPS prints a rate in requests per second with one decimal.
func fmtRPS(v float64) string {
	if !finite(v) {
		return notMeasured
	}
	return fmt.Sprintf("%.1f req/s", v)
}

// fmtPercent prints part/total as a percentage: "100%" only when every one
// counted, otherwise two decimals. Rounding never produces a misleading
// "100.00%" or "0.00%": those read ">99.99%" and "<0.01%".
func fmtPercent(part, total int64) string {
	if total <= 0 {
		return "n/a"
	}
	return fmtFraction(float64(part) / float64(total))
}

// fmtFraction prints a fraction in [0,1] as fmtPercent does.
func fmtFraction(f float64) string {
	if !finite(f) {
		return notMeasured
	}
	return analyze.FormatFraction(f)
}

// fmtCount prints an integer with thousands separators: 50,000.
func fmtCount(n int64) string { return analyze.FormatCount(n) }

// fmtCores prints CPU in cores with three significant digits.
func fmtCores(v float64) string {
	if !finite(v) {
		return notMeasured
	}
	s := fmtSig(v, 3)
	if strings.Contains(s, ".") {
		// Cores span 0.000004 to 64: trailing zeros add width, not precision.
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + " cores"
}

// fmtMB prints bytes as decimal megabytes with one decimal.
func fmtMB(bytes float64) string {
	if !finite(bytes) {
		return notMeasured
	}
	return fmt.Sprintf("%.1f MB", bytes/1e6)
}

// fmtRange prints "lo–hi unit" with f, or a single value when both print
// the same.
func fmtRange(lo, hi float64, f func(float64) string) string {
	a, b := f(lo), f(hi)
	if a == b {
		return a
	}
	na, ua, okA := strings.Cut(a, " ")
	nb, ub, okB := strings.Cut(b, " ")
	if okA && okB && ua == ub {
		return na + "–" + nb + " " + ua
	}
	return a + " – " + b
}
