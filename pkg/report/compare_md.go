package report

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// CompareMarkdown writes a comparison in the layout of the migration reports'
// hand-made comparisons: what is compared on purpose and warnings first, then
// an executive summary, test configuration and environments, configuration
// differences, detailed latency/throughput tables with Difference columns and
// text bar charts, per-iteration side-by-side tables, significance, success
// rate and error analysis, resources, and data sources.
func CompareMarkdown(w io.Writer, c *analyze.Comparison) error {
	if c == nil || len(c.Sides) < 2 {
		return errors.New("writing comparison: nothing to compare")
	}
	m := &cmpMD{c: c}
	m.document()
	var secrets []string
	for _, s := range c.Sides {
		secrets = append(secrets, secretsOf(s.Run)...)
	}
	out := blankLines.ReplaceAllString(m.b.String(), "\n\n")
	if _, err := io.WriteString(w, scrub(out, secrets)); err != nil {
		return fmt.Errorf("writing comparison: %w", err)
	}
	return nil
}

// cmpMD accumulates the Markdown of one comparison.
type cmpMD struct {
	b strings.Builder
	c *analyze.Comparison
}

func (m *cmpMD) printf(format string, a ...any) { fmt.Fprintf(&m.b, format, a...) }

func (m *cmpMD) document() {
	m.title()
	m.declared()
	m.warnings()
	m.executiveSummary()
	m.configuration()
	m.printf("## Detailed Performance Comparison\n\n")
	m.latency()
	m.significance()
	m.throughput()
	m.iterations()
	m.reliability()
	m.resources()
	m.sources()
}

// labels are the side labels; others are the non-baseline side indexes.
func (m *cmpMD) labels() []string {
	var l []string
	for _, s := range m.c.Sides {
		l = append(l, s.Label)
	}
	return l
}

func (m *cmpMD) others() []int {
	var idx []int
	for i := range m.c.Sides {
		if i != m.c.Baseline {
			idx = append(idx, i)
		}
	}
	return idx
}

func (m *cmpMD) base() *analyze.Side { return m.c.BaselineSide() }

// diffHeads are the Difference column headings: one "Difference" with two
// sides, "B vs A" per side with more.
func (m *cmpMD) diffHeads() []string {
	if len(m.c.Sides) == 2 {
		return []string{"Difference"}
	}
	var h []string
	for _, i := range m.others() {
		h = append(h, m.c.Sides[i].Label+" vs "+m.base().Label)
	}
	return h
}

func (m *cmpMD) title() {
	m.printf("# Performance Comparison: %s\n\n", strings.Join(m.labels(), " vs "))
	var dates []string
	for _, s := range m.c.Sides {
		d := "date unknown"
		if !s.Run.Start.IsZero() {
			d = s.Run.Start.UTC().Format("January 2, 2006")
		}
		dates = append(dates, fmt.Sprintf("%s (%s)", s.Label, d))
	}
	m.printf("**Runs:** %s\n", strings.Join(dates, ", "))
	m.printf("**Baseline:** %s\n", m.base().Label)
	what := "runs"
	if m.c.WithinRun {
		what = "targets of run " + m.base().RunName
	}
	m.printf("**Purpose:** Compare %s side by side; every difference is tested against run-to-run noise\n\n", what)
}

// warnings go first: a reader must know the sides differ before reading
// any ratio.
func (m *cmpMD) warnings() {
	if len(m.c.Warnings) == 0 {
		return
	}
	m.printf("> ⚠️ **These runs are not directly comparable.** The differences below mix in:\n>\n")
	for _, w := range m.c.Warnings {
		m.printf("> - %s\n", w.Message)
	}
	m.printf("\n")
}

func (m *cmpMD) executiveSummary() {
	m.printf("## Executive Summary\n\n")
	for _, s := range ExecutiveSummary(m.c) {
		m.printf("%s\n\n", s)
	}
	p50, _ := analyze.MetricByKey(m.c.Latency, "p50")
	p95, _ := analyze.MetricByKey(m.c.Latency, "p95")
	tp, _ := analyze.MetricByKey(m.c.Throughput, "throughput_mean")
	mdHeader(&m.b, "Version", "Architecture", "P95 Latency", "P50 Latency", "Throughput", "Success Rate")
	for i, s := range m.c.Sides {
		arch := "not recorded"
		if len(s.Layers) > 0 {
			arch = strings.Join(s.Layers, " → ")
		}
		mdRow(&m.b, bold(s.Label), cell(arch), bold(cmpValue(p95, i)), bold(cmpValue(p50, i)), bold(cmpValue(tp, i)), analyze.FormatFraction(s.SuccessRate))
	}
	m.printf("\n**Key Findings:**\n")
	for _, i := range m.others() {
		m.keyFindings(i, p50, p95, tp)
	}
	m.printf("\n")
	if len(m.c.Notes) > 0 {
		m.printf("**Notes:**\n")
		for _, n := range m.c.Notes {
			m.printf("- %s\n", n.Message)
		}
		m.printf("\n")
	}
}

func (m *cmpMD) keyFindings(i int, p50, p95, tp analyze.Metric) {
	s, base := m.c.Sides[i], m.base().Label
	for _, row := range []struct {
		metric analyze.Metric
		what   string
	}{{p95, "P95 latency"}, {p50, "P50 latency"}} {
		d := row.metric.Deltas[i]
		switch d.Verdict {
		case analyze.VerdictWorse, analyze.VerdictBetter:
			m.printf("- %s is **%s** than %s (%s)\n", s.Label, deltaWords(d, false), base, row.what)
		case analyze.VerdictWithinNoise:
			m.printf("- %s is within noise of %s (%s: %s)\n", s.Label, base, row.what, deltaWords(d, false))
		}
	}
	switch d := tp.Deltas[i]; d.Verdict {
	case analyze.VerdictWorse, analyze.VerdictBetter:
		m.printf("- %s has **%s throughput** than %s\n", s.Label, deltaWords(d, true), base)
	case analyze.VerdictWithinNoise:
		m.printf("- %s has the same throughput as %s within noise\n", s.Label, base)
	}
	sr := m.c.SuccessRate
	m.printf("- Success rate: %s %s, %s %s\n", base, analyze.FormatFraction(sr.Values[m.c.Baseline]), s.Label, analyze.FormatFraction(sr.Values[i]))
}

func (m *cmpMD) configuration() {
	m.printf("## Test Configuration\n\n")
	var same, diff []analyze.ConfigRow
	for _, r := range m.c.Config {
		if r.Differs {
			diff = append(diff, r)
		} else {
			same = append(same, r)
		}
	}
	var unknown []string
	if len(same) > 0 {
		m.printf("Shared by every side:\n\n")
		for _, r := range same {
			if r.Values[0] == analyze.Unknown {
				unknown = append(unknown, r.Parameter)
				continue
			}
			m.printf("- **%s:** %s\n", r.Parameter, cell(r.Values[0]))
		}
		if len(unknown) > 0 {
			m.printf("- **Not recorded by any side:** %s\n", strings.Join(unknown, ", "))
		}
		m.printf("\n")
	}
	m.environments()
	m.printf("### Configuration Differences\n\n")
	if len(diff) == 0 {
		m.printf("No recorded parameter differs.\n\n")
		return
	}
	mdHeader(&m.b, slices.Concat([]string{"Parameter"}, m.labels(), []string{"Notes"})...)
	for _, r := range diff {
		vals := make([]string, len(r.Values))
		for i, v := range r.Values {
			vals[i] = cell(v)
		}
		mdRow(&m.b, slices.Concat([]string{bold(r.Parameter)}, vals, []string{r.Note()})...)
	}
	m.printf("\n")
}

func (m *cmpMD) environments() {
	m.printf("### Test Environments\n\n")
	mdHeader(&m.b, "Version", "Test Date", "Load Generator", "Target", "Backend Server", "Tool")
	for _, s := range m.c.Sides {
		date := "unknown"
		if !s.Run.Start.IsZero() {
			date = s.Run.Start.UTC().Format("Jan 2, 2006")
		}
		host := s.Run.Environment.Host
		if host == "" {
			host = "unknown"
		} else if s.Run.Environment.CPUs > 0 {
			host += fmt.Sprintf(" (%d CPUs)", s.Run.Environment.CPUs)
		}
		url, server := "unknown", "unknown"
		if fp := s.Fingerprint; fp != nil {
			url = redactURL(fp.URL)
			if fp.Error == "" {
				server = firstNonEmpty(fp.Server, "(none)")
			}
		} else if u := targetOf(s); u != "" {
			url = redactURL(u)
		}
		mdRow(&m.b, bold(s.Label), date, cell(host), cell(url), cell(server), cell(toolName(s)))
	}
	m.printf("\n")
}

func targetOf(s *analyze.Side) string {
	for _, t := range s.Run.Plan.Targets {
		if t.Name == s.Target {
			return t.URL
		}
	}
	return ""
}

func toolName(s *analyze.Side) string {
	if s.Run.Imported != nil {
		return s.Run.Imported.Tool + " (imported)"
	}
	return strings.TrimSpace("authbench " + s.Run.AuthbenchVersion)
}

func (m *cmpMD) sources() {
	m.printf("## Test Data Sources\n\n")
	for _, s := range m.c.Sides {
		var parts []string
		if s.Dir != "" {
			parts = append(parts, code(s.Dir))
		}
		if s.RunID != "" {
			parts = append(parts, "run "+code(s.RunID))
		}
		if im := s.Run.Imported; im != nil {
			parts = append(parts, "imported from "+im.Tool+": "+codeList(im.Files))
		}
		if !s.Run.Start.IsZero() {
			parts = append(parts, s.Run.Start.UTC().Format("Jan 2, 2006"))
		}
		m.printf("- **%s:** %s\n", s.Label, strings.Join(parts, ", "))
	}
	m.printf("\n*Latency figures: %s. Tests at %.0f%% confidence: Welch's t-test on per-iteration values", m.c.LatencySource, m.c.Confidence*100)
	if m.c.LatencySource == analyze.SourceMerged {
		m.printf(", and a bootstrap interval from the merged histograms")
	}
	m.printf(".*\n")
}

// sideResults are a side's results, for helpers shared with summary.md.
func sideResults(s *analyze.Side) []results.Result { return s.Results }
