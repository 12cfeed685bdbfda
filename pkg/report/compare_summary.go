package report

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
)

// ExecutiveSummary says, per non-baseline side of c, the headline
// ratios in words: "3.x is 1.52x slower than 2.x at P50 and 2.00x at P95; throughput 0.65x ...".
func ExecutiveSummary(c *analyze.Comparison) []string {
	var out []string
	base := c.BaselineSide()
	p50, _ := analyze.MetricByKey(c.Latency, "p50")
	p95, _ := analyze.MetricByKey(c.Latency, "p95")
	tp, _ := analyze.MetricByKey(c.Throughput, "throughput_mean")
	for i, s := range c.Sides {
		if i == c.Baseline {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s is %s", s.Label, latencyPhrase(p50.Deltas[i], p95.Deltas[i], base.Label))
		fmt.Fprintf(&b, "; throughput %s", throughputPhrase(tp, i, c.Baseline))
		fmt.Fprintf(&b, "; success rate %s", successPhrase(c.SuccessRate, i, c.Baseline))
		if !p50.Deltas[i].Sig.Known() && p50.Deltas[i].Verdict != analyze.VerdictMissing {
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

func allSaturated(sat []*analyze.Saturation) bool {
	for _, s := range sat {
		if s == nil || !s.Holds {
			return false
		}
	}
	return true
}

// latencyPhrase: "1.52x slower than 2.x at P50 and 2.00x at P95".
func latencyPhrase(p50, p95 analyze.Delta, base string) string {
	a, b := deltaWords(p50, false), deltaWords(p95, false)
	if p50.Verdict == p95.Verdict && (p50.Verdict == analyze.VerdictWorse || p50.Verdict == analyze.VerdictBetter) {
		dir := "slower"
		if p50.Verdict == analyze.VerdictBetter {
			dir = "faster"
		}
		return fmt.Sprintf("%s %s than %s at P50 and %s at P95", analyze.FormatRatio(speedRatio(p50)), dir, base, analyze.FormatRatio(speedRatio(p95)))
	}
	return fmt.Sprintf("%s at P50 and %s at P95 (vs %s)", a, b, base)
}

// speedRatio is how many times slower or faster: always >= 1.
func speedRatio(d analyze.Delta) float64 {
	if d.Ratio > 0 && d.Ratio < 1 {
		return 1 / d.Ratio
	}
	return d.Ratio
}

// deltaWords describes a latency delta ("1.52x slower", "within noise
// (+0.40 ms)", "equal", "not measured"); higherIsBetter selects "higher"
// and "lower" wording for rates.
func deltaWords(d analyze.Delta, higherIsBetter bool) string {
	switch d.Verdict {
	case analyze.VerdictBaseline:
		return "baseline"
	case analyze.VerdictEqual:
		return "equal"
	case analyze.VerdictMissing:
		return "not measured"
	case analyze.VerdictWithinNoise:
		if higherIsBetter {
			return fmt.Sprintf("within noise (%s)", analyze.FormatRatio(d.Ratio))
		}
		return fmt.Sprintf("within noise (%s)", signedMs(d.Diff))
	}
	if higherIsBetter {
		if d.Ratio >= 1 {
			return analyze.FormatRatio(d.Ratio) + " higher"
		}
		return analyze.FormatRatio(1/d.Ratio) + " lower"
	}
	if d.Diff > 0 {
		return analyze.FormatRatio(speedRatio(d)) + " slower"
	}
	return analyze.FormatRatio(speedRatio(d)) + " faster"
}

func throughputPhrase(m analyze.Metric, i, base int) string {
	d := m.Deltas[i]
	vals := fmt.Sprintf("%s vs %s req/s", analyze.FormatRate(m.Values[i]), analyze.FormatRate(m.Values[base]))
	switch d.Verdict {
	case analyze.VerdictWithinNoise:
		return fmt.Sprintf("within noise (%s, %s)", analyze.FormatRatio(d.Ratio), vals)
	case analyze.VerdictEqual:
		return "equal (" + vals + ")"
	}
	return fmt.Sprintf("%s (%s)", analyze.FormatRatio(d.Ratio), vals)
}

func successPhrase(m analyze.Metric, i, base int) string {
	d := m.Deltas[i]
	vals := analyze.FormatFraction(m.Values[i]) + " vs " + analyze.FormatFraction(m.Values[base])
	switch d.Verdict {
	case analyze.VerdictEqual:
		return "equal (" + analyze.FormatFraction(m.Values[i]) + ")"
	case analyze.VerdictWithinNoise:
		return "within noise (" + vals + ")"
	case analyze.VerdictWorse:
		return "lower (" + vals + ")"
	case analyze.VerdictBetter:
		return "higher (" + vals + ")"
	}
	return "not measured"
}

func signedMs(ms float64) string {
	if ms >= 0 {
		return "+" + analyze.FormatMs(ms)
	}
	return "−" + analyze.FormatMs(-ms)
}
