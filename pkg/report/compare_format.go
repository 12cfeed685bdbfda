package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
)

// barWidth is the length of the longest text bar, as in the migration reports'
// charts.
const barWidth = 50

// barChar is a full block; the migration reports' bars were this character
// mangled by a wrong encoding, so tests check the bytes are valid UTF-8.
const barChar = "█"

// textBars draws one bar per label, scaled to the largest value, with the
// value and a suffix (the ratio to the baseline) after each bar. A
// non-zero value always gets at least one block so it stays visible.
func textBars(title string, labels []string, values []float64, format func(float64) string, suffix []string) string {
	var b strings.Builder
	b.WriteString("```\n")
	b.WriteString(title + "\n")
	width, top := 0, 0.0
	for i, l := range labels {
		width = max(width, len([]rune(l)))
		top = max(top, values[i])
	}
	for i, l := range labels {
		n := 0
		if top > 0 && values[i] > 0 {
			n = max(1, int(math.Round(values[i]/top*barWidth)))
		}
		fmt.Fprintf(&b, "%s:%s %s %s", l, strings.Repeat(" ", width-len([]rune(l))), strings.Repeat(barChar, n), format(values[i]))
		if i < len(suffix) && suffix[i] != "" {
			b.WriteString(" (" + suffix[i] + ")")
		}
		b.WriteString("\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// cmpMs prints a latency for a comparison table.
func cmpMs(ms float64) string { return analyze.FormatMs(ms) }

// cmpSignedMs prints a latency difference with its sign.
func cmpSignedMs(ms float64) string {
	if ms >= 0 {
		return "+" + analyze.FormatMs(ms)
	}
	return "−" + analyze.FormatMs(-ms)
}

// cmpRate prints a throughput in requests per second.
func cmpRate(v float64) string { return analyze.FormatRate(v) + " req/s" }

// cmpDuration prints seconds as the migration reports do: "53.7 s", "28.7 min".
func cmpDuration(s float64) string {
	switch {
	case s <= 0:
		return notMeasured
	case s < 120:
		return fmtSig(s, 3) + " s"
	case s < 7200:
		return fmtSig(s/60, 3) + " min"
	}
	return fmtSig(s/3600, 3) + " h"
}

// cmpValue prints a metric value in its unit.
func cmpValue(m analyze.Metric, i int) string {
	if m.Missing[i] {
		return notMeasured
	}
	return unitValue(m.Unit, m.Values[i])
}

func unitValue(unit string, v float64) string {
	switch unit {
	case "ms":
		return cmpMs(v)
	case "req/s":
		return cmpRate(v)
	case "s":
		return cmpDuration(v)
	case "fraction":
		return analyze.FormatFraction(v)
	}
	return fmtSig(v, 3)
}

// differenceCell is a Difference column: "**32.1x slower**", "within
// noise (+0.40 ms)", "**1.03x slower** (noise unknown)".
func differenceCell(m analyze.Metric, i int) string {
	d := m.Deltas[i]
	words := deltaWords(d, m.HigherIsBetter)
	switch d.Verdict {
	case analyze.VerdictWorse, analyze.VerdictBetter:
		cell := "**" + words + "**"
		if m.Unit == "ms" {
			cell = cmpSignedMs(d.Diff) + " (" + cell + ")"
		}
		if !m.Descriptive && !d.Sig.Known() {
			cell += " (noise unknown)"
		}
		return cell
	}
	return words
}

// iterationDiff is a per-iteration Difference cell: "+1.55 s (31.3x)".
func iterationDiff(unit string, base, v float64) string {
	ratio := "n/a"
	if base > 0 {
		ratio = analyze.FormatRatio(v / base)
	}
	if unit == "ms" {
		return cmpSignedMs(v-base) + " (" + ratio + ")"
	}
	diff := v - base
	sign := "+"
	if diff < 0 {
		sign, diff = "−", -diff
	}
	return sign + unitValue(unit, diff) + " (" + ratio + ")"
}

// cmpP is a p-value as people read it.
func cmpP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// pText is "p < 0.001" or "p = 0.032".
func pText(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}

// mdRow writes a Markdown table row.
func mdRow(b *strings.Builder, cells ...string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// mdHeader writes a table header and its separator, dashes as wide as
// each heading as the migration reports have them.
func mdHeader(b *strings.Builder, cells ...string) {
	mdRow(b, cells...)
	seps := make([]string, len(cells))
	for i, c := range cells {
		seps[i] = strings.Repeat("-", max(3, len([]rune(c))+2))
	}
	b.WriteString("|" + strings.Join(seps, "|") + "|\n")
}

func bold(s string) string { return "**" + s + "**" }
