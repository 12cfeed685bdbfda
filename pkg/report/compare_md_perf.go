package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
)

func (m *cmpMD) latency() {
	m.printf("### Latency Metrics\n\n")
	mdHeader(&m.b, slices.Concat([]string{"Metric"}, m.labels(), m.diffHeads())...)
	for _, row := range m.c.Latency {
		m.metricRow(row)
	}
	m.printf("\n**Visualization:**\n\n")
	for _, key := range []string{"p50", "p95"} {
		row, _ := analyze.MetricByKey(m.c.Latency, key)
		m.bars(row, strings.ToUpper(key)+" Latency Comparison:")
	}
	m.printf("\n")
}

func (m *cmpMD) metricRow(row analyze.Metric) {
	cells := []string{bold(row.Name)}
	for i := range m.c.Sides {
		cells = append(cells, cmpValue(row, i))
	}
	for _, i := range m.others() {
		cells = append(cells, differenceCell(row, i))
	}
	mdRow(&m.b, cells...)
}

// bars draws a metric as a text bar chart, each non-baseline bar followed
// by its ratio to the baseline.
func (m *cmpMD) bars(row analyze.Metric, title string) {
	var labels, suffix []string
	var values []float64
	for i, s := range m.c.Sides {
		if row.Missing[i] {
			continue
		}
		labels = append(labels, s.Label)
		values = append(values, row.Values[i])
		sfx := ""
		if i != m.c.Baseline && row.Deltas[i].Ratio > 0 {
			sfx = analyze.FormatRatio(row.Deltas[i].Ratio)
			if row.Deltas[i].Verdict == analyze.VerdictWithinNoise {
				sfx += ", within noise"
			}
		}
		suffix = append(suffix, sfx)
	}
	if len(labels) < 2 {
		return
	}
	m.b.WriteString(textBars(title, labels, values, func(v float64) string { return unitValue(row.Unit, v) }, suffix))
	m.printf("\n")
}

// significance explains, per metric, why a difference is or is not called
// beyond noise: the interval, the test and its p-value.
func (m *cmpMD) significance() {
	m.printf("### Significance\n\n")
	m.printf("A difference is called beyond noise only when every available test rejects \"no difference\" at %.0f%% confidence: Welch's t-test on the per-iteration values (run-to-run noise)", m.c.Confidence*100)
	if m.c.LatencySource == analyze.SourceMerged {
		m.printf(" and a bootstrap interval on the percentile difference, resampled from the merged histograms (sampling noise)")
	}
	m.printf(".\n\n")
	for _, i := range m.others() {
		if len(m.others()) > 1 {
			m.printf("#### %s vs %s\n\n", m.c.Sides[i].Label, m.base().Label)
		}
		mdHeader(&m.b, "Metric", m.c.Sides[i].Label+" − "+m.base().Label, fmt.Sprintf("%.0f%% CI", m.c.Confidence*100), "Test", "p-value", "Iteration ranges overlap", "Verdict")
		rows := slices.Concat(m.c.Latency, m.c.Throughput[:1], []analyze.Metric{m.c.SuccessRate})
		for _, row := range rows {
			m.sigRow(row, i)
		}
		m.printf("\n")
	}
}

func (m *cmpMD) sigRow(row analyze.Metric, i int) {
	d := row.Deltas[i]
	if d.Verdict == analyze.VerdictMissing {
		mdRow(&m.b, row.Name, notMeasured, "", "", "", "", "not measured")
		return
	}
	sig := d.Sig
	diff := signedValue(row.Unit, d.Diff)
	if row.Descriptive {
		mdRow(&m.b, row.Name, diff, "—", "not tested: a single request", "—", "—", "—")
		return
	}
	ci, test, p, overlap := "—", "none (noise unknown)", "—", "—"
	if sig.CIMethod != "" {
		ci = signedValue(row.Unit, sig.CILow) + " … " + signedValue(row.Unit, sig.CIHigh)
	}
	if sig.Known() {
		test = testNames(sig)
	}
	if slices.Contains(sig.Tests, analyze.TestWelch) || slices.Contains(sig.Tests, analyze.TestProportion) {
		p = cmpP(sig.PValue)
	}
	if slices.Contains(sig.Tests, analyze.TestWelch) {
		overlap = yesNoWord(sig.RangesOverlap)
	}
	mdRow(&m.b, row.Name, diff, ci, test, p, overlap, verdictWord(d))
}

func testNames(sig analyze.Significance) string {
	var out []string
	for _, t := range sig.Tests {
		switch t {
		case analyze.TestWelch:
			out = append(out, fmt.Sprintf("Welch (df %.1f)", sig.DF))
		case analyze.TestBootstrap:
			out = append(out, "bootstrap")
		case analyze.TestProportion:
			out = append(out, "two-proportion z")
		}
	}
	return strings.Join(out, " + ")
}

func verdictWord(d analyze.Delta) string {
	switch d.Verdict {
	case analyze.VerdictWithinNoise:
		return "within noise"
	case analyze.VerdictEqual:
		return "equal"
	case analyze.VerdictWorse, analyze.VerdictBetter:
		if d.Sig.Known() {
			return "**beyond noise**"
		}
		return "noise unknown"
	}
	return string(d.Verdict)
}

func yesNoWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func signedValue(unit string, v float64) string {
	switch unit {
	case "ms":
		return cmpSignedMs(v)
	case "fraction":
		return strings.Replace(fmt.Sprintf("%+.2f pp", v*100), "-", "−", 1)
	}
	if v >= 0 {
		return "+" + unitValue(unit, v)
	}
	return "−" + unitValue(unit, -v)
}

func (m *cmpMD) throughput() {
	m.printf("### Throughput Comparison\n\n")
	total := m.base().Requests
	mdHeader(&m.b, "Version", "Avg Throughput", "Min", "Max", "Std Dev", fmt.Sprintf("Total Time (%s req)", fmtCount(total)))
	for i, s := range m.c.Sides {
		sd := "— (one iteration)"
		if len(s.Results) > 1 && s.Throughput.Mean > 0 {
			sd = fmt.Sprintf("±%s (%.1f%%)", analyze.FormatRate(s.Throughput.Stddev), s.Throughput.Stddev/s.Throughput.Mean*100)
		}
		mdRow(&m.b, bold(s.Label), cmpRate(m.c.Throughput[0].Values[i]), analyze.FormatRate(s.Throughput.Min), analyze.FormatRate(s.Throughput.Max),
			sd, cmpDuration(s.TotalTimeS)+requestsNote(s, total))
	}
	m.printf("\n**Analysis:**\n")
	for _, i := range m.others() {
		s := m.c.Sides[i]
		avg := m.c.Throughput[0]
		m.printf("- %s: %s throughput of %s (%s)\n", s.Label, analyze.FormatRatio(avg.Deltas[i].Ratio), m.base().Label, differenceCell(avg, i))
		if s.Requests == total && s.TotalTimeS > 0 && m.base().TotalTimeS > 0 {
			m.printf("- %s needs %s the time of %s for the same %s requests\n", s.Label, analyze.FormatRatio(s.TotalTimeS/m.base().TotalTimeS), m.base().Label, fmtCount(total))
		}
	}
	for _, s := range m.c.Sides {
		m.printf("- %s per-iteration range: %s to %s req/s\n", s.Label, analyze.FormatRate(s.Throughput.Min), analyze.FormatRate(s.Throughput.Max))
	}
	m.printf("\n")
	m.bars(m.c.Throughput[0], "Throughput Comparison:")
	m.printf("\n")
}

func requestsNote(s *analyze.Side, total int64) string {
	if s.Requests == total {
		return ""
	}
	return fmt.Sprintf(" (%s req)", fmtCount(s.Requests))
}

// iterations writes the per-iteration side-by-side tables.
func (m *cmpMD) iterations() {
	m.printf("### Latency Distribution Comparison\n\n")
	for _, t := range m.c.Iterations {
		if t.Key == "throughput" {
			m.printf("#### Throughput per Iteration\n\n")
		} else {
			m.printf("#### %s\n\n", t.Name)
		}
		if slices.Contains(t.Missing, true) {
			var miss []string
			for i, x := range t.Missing {
				if x {
					miss = append(miss, m.c.Sides[i].Label)
				}
			}
			m.printf("*Not measured for %s.*\n\n", strings.Join(miss, ", "))
			if len(miss) == len(m.c.Sides) {
				continue
			}
		}
		m.iterationTable(t)
	}
}

func (m *cmpMD) iterationTable(t analyze.IterationTable) {
	mdHeader(&m.b, slices.Concat([]string{"Iteration"}, m.labels(), m.diffHeads())...)
	b := m.c.Baseline
	value := func(i int, v float64, present bool) string {
		if !present || t.Missing[i] {
			return "—"
		}
		return unitValue(t.Unit, v)
	}
	for _, r := range t.Rows {
		cells := []string{fmt.Sprint(r.Iteration)}
		for i := range m.c.Sides {
			cells = append(cells, value(i, r.Values[i], r.Present[i]))
		}
		for _, i := range m.others() {
			d := "—"
			if r.Present[i] && r.Present[b] && !t.Missing[i] && !t.Missing[b] {
				d = iterationDiff(t.Unit, r.Values[b], r.Values[i])
			}
			cells = append(cells, d)
		}
		mdRow(&m.b, cells...)
	}
	cells := []string{bold("Average")}
	for i := range m.c.Sides {
		cells = append(cells, bold(value(i, t.Average[i], true)))
	}
	for _, i := range m.others() {
		d := "—"
		if !t.Missing[i] && !t.Missing[b] && t.Average[b] > 0 {
			d = bold(averageWords(t.Unit, t.Average[b], t.Average[i]))
			if m.withinNoise(t.Key, i) {
				d = "within noise (" + analyze.FormatRatio(t.Average[i]/t.Average[b]) + ")"
			}
		}
		cells = append(cells, d)
	}
	mdRow(&m.b, cells...)
	m.printf("\n")
}

// withinNoise reports whether the tested metric behind an iteration
// table says side i is within noise of the baseline.
func (m *cmpMD) withinNoise(key string, i int) bool {
	row, ok := analyze.MetricByKey(m.c.Latency, key)
	if key == "throughput" {
		row, ok = analyze.MetricByKey(m.c.Throughput, "throughput_mean")
	}
	return ok && row.Deltas[i].Verdict == analyze.VerdictWithinNoise
}

// averageWords: "32.1x slower" for latency, "0.0312x" for throughput.
func averageWords(unit string, base, v float64) string {
	r := v / base
	if unit != "ms" {
		return analyze.FormatRatio(r)
	}
	switch {
	case r > 1:
		return analyze.FormatRatio(r) + " slower"
	case r < 1 && r > 0:
		return analyze.FormatRatio(1/r) + " faster"
	}
	return "equal"
}
