package demo

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
)

// ms formats a latency given in milliseconds, with its unit.
func ms(x float64) string { return analyze.FormatMs(x) }

// rps formats a rate to 3 significant digits.
func rps(x float64) string {
	return strconv.FormatFloat(roundSig(x, 3), 'f', -1, 64)
}

// times is a / b as "3.4×" ("n/a" without b).
func times(a, b float64) string {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "n/a"
	}
	r := a / b
	if r >= 10 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.2g×", r)
}

// roundSig rounds x to n significant digits.
func roundSig(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// pct formats a fraction as a percentage.
func pct(f float64) string {
	if f >= 0.9995 && f < 1 {
		return strconv.FormatFloat(math.Floor(f*1000)/10, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(roundSig(f*100, 3), 'f', -1, 64) + "%"
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
