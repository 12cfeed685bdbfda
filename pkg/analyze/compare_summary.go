package analyze

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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

// executiveSummary says, per non-baseline side, the headline ratios in
// words: "3.x is 1.52x slower than 2.x at P50 and 2.00x at P95; throughput 0.65x ...".
func executiveSummary(c *Comparison) []string {
	var out []string
	base := c.BaselineSide()
	p50, _ := MetricByKey(c.Latency, "p50")
	p95, _ := MetricByKey(c.Latency, "p95")
	tp, _ := MetricByKey(c.Throughput, "throughput_mean")
	for i, s := range c.Sides {
		if i == c.Baseline {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s is %s", s.Label, latencyPhrase(p50.Deltas[i], p95.Deltas[i], base.Label))
		fmt.Fprintf(&b, "; throughput %s", throughputPhrase(tp, i, c.Baseline))
		fmt.Fprintf(&b, "; success rate %s", successPhrase(c.SuccessRate, i, c.Baseline))
		if !p50.Deltas[i].Sig.Known() && p50.Deltas[i].Verdict != VerdictMissing {
			b.WriteString(" (noise unknown: a single iteration and no histograms, so no test could tell these differences from noise)")
		}
		b.WriteString(".")
		out = append(out, b.String())
	}
	if allSaturated(c.Saturation) {
		out = append(out, "Every side was a closed-loop saturation test (mean latency = concurrency / throughput): the latency ratios restate the capacity ratio as queueing time.")
	}
	return out
}

func allSaturated(sat []*Saturation) bool {
	for _, s := range sat {
		if s == nil || !s.Holds {
			return false
		}
	}
	return true
}

// latencyPhrase: "1.52x slower than 2.x at P50 and 2.00x at P95".
func latencyPhrase(p50, p95 Delta, base string) string {
	a, b := DeltaWords(p50, false), DeltaWords(p95, false)
	if p50.Verdict == p95.Verdict && (p50.Verdict == VerdictWorse || p50.Verdict == VerdictBetter) {
		dir := "slower"
		if p50.Verdict == VerdictBetter {
			dir = "faster"
		}
		return fmt.Sprintf("%s %s than %s at P50 and %s at P95", FormatRatio(speedRatio(p50)), dir, base, FormatRatio(speedRatio(p95)))
	}
	return fmt.Sprintf("%s at P50 and %s at P95 (vs %s)", a, b, base)
}

// speedRatio is how many times slower or faster: always >= 1.
func speedRatio(d Delta) float64 {
	if d.Ratio > 0 && d.Ratio < 1 {
		return 1 / d.Ratio
	}
	return d.Ratio
}

// DeltaWords describes a latency delta ("1.52x slower", "within noise
// (+0.40 ms)", "equal", "not measured"); higherIsBetter selects "higher"
// and "lower" wording for rates.
func DeltaWords(d Delta, higherIsBetter bool) string {
	switch d.Verdict {
	case VerdictBaseline:
		return "baseline"
	case VerdictEqual:
		return "equal"
	case VerdictMissing:
		return "not measured"
	case VerdictWithinNoise:
		if higherIsBetter {
			return fmt.Sprintf("within noise (%s)", FormatRatio(d.Ratio))
		}
		return fmt.Sprintf("within noise (%s)", signedMs(d.Diff))
	}
	if higherIsBetter {
		if d.Ratio >= 1 {
			return FormatRatio(d.Ratio) + " higher"
		}
		return FormatRatio(1/d.Ratio) + " lower"
	}
	if d.Diff > 0 {
		return FormatRatio(speedRatio(d)) + " slower"
	}
	return FormatRatio(speedRatio(d)) + " faster"
}

func throughputPhrase(m Metric, i, base int) string {
	d := m.Deltas[i]
	vals := fmt.Sprintf("%s vs %s req/s", FormatRate(m.Values[i]), FormatRate(m.Values[base]))
	switch d.Verdict {
	case VerdictWithinNoise:
		return fmt.Sprintf("within noise (%s, %s)", FormatRatio(d.Ratio), vals)
	case VerdictEqual:
		return "equal (" + vals + ")"
	}
	return fmt.Sprintf("%s (%s)", FormatRatio(d.Ratio), vals)
}

func successPhrase(m Metric, i, base int) string {
	d := m.Deltas[i]
	vals := FormatFraction(m.Values[i]) + " vs " + FormatFraction(m.Values[base])
	switch d.Verdict {
	case VerdictEqual:
		return "equal (" + FormatFraction(m.Values[i]) + ")"
	case VerdictWithinNoise:
		return "within noise (" + vals + ")"
	case VerdictWorse:
		return "lower (" + vals + ")"
	case VerdictBetter:
		return "higher (" + vals + ")"
	}
	return "not measured"
}

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

func signedMs(ms float64) string {
	if ms >= 0 {
		return "+" + FormatMs(ms)
	}
	return "−" + FormatMs(-ms)
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
