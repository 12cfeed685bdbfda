package analyze

import (
	"math"
	"strconv"
	"strings"
)

// The figures' formats, shared by analyze's warnings and report's tables.

// FormatRatio prints a ratio with three significant digits: "0.650x",
// "1.52x", "32.4x", "147x".
func FormatRatio(r float64) string {
	if r <= 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return "n/a"
	}
	return sig3(r) + "x"
}

func sig3(x float64) string {
	if x == 0 {
		return "0"
	}
	mag := int(math.Floor(math.Log10(math.Abs(x))))
	p := math.Pow(10, float64(2-mag))
	x = math.Round(x*p) / p
	// Rounding may carry into the next decade (0.9997 -> 1.00).
	mag = int(math.Floor(math.Log10(math.Abs(x)) + 1e-12))
	return strconv.FormatFloat(x, 'f', max(0, 2-mag), 64)
}

// FormatMs prints milliseconds with three significant digits in the unit
// that keeps the number readable: "850 µs", "46.0 ms", "2.97 s".
func FormatMs(ms float64) string {
	switch a := math.Abs(ms); {
	case math.IsNaN(ms):
		return "n/a"
	case a == 0:
		return "0 ms"
	case a < 1:
		return sig3(ms*1000) + " µs"
	case a < 999.5:
		return sig3(ms) + " ms"
	}
	return sig3(ms/1000) + " s"
}

// FormatRate prints requests per second: "931", "29.0", "1.50".
func FormatRate(v float64) string {
	if v >= 1000 {
		return commas(int64(math.Round(v)))
	}
	return sig3(v)
}

// FormatFraction prints a success rate; never a misleading "100.00%".
func FormatFraction(f float64) string {
	switch {
	case f == 1:
		return "100%"
	case f == 0:
		return "0%"
	}
	s := strconv.FormatFloat(f*100, 'f', 2, 64) + "%"
	switch s {
	case "100.00%":
		return ">99.99%"
	case "0.00%":
		return "<0.01%"
	}
	return s
}

// FormatCount prints an integer with thousands separators: 50,000.
func FormatCount(n int64) string { return commas(n) }

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
