package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

func (m *cmpMD) reliability() {
	m.printf("### Success Rate & Reliability\n\n")
	mdHeader(&m.b, "Version", "Total Requests", "Successful", "Failed", "Success Rate", "Error Details")
	for _, s := range m.c.Sides {
		mdRow(&m.b, bold(s.Label), fmtCount(s.Requests), fmtCount(s.Successes), fmtCount(s.Failures),
			bold(analyze.FormatFraction(s.SuccessRate)), cell(errorDetails(sideResults(s))))
	}
	sr := m.c.SuccessRate
	for _, i := range m.others() {
		d := sr.Deltas[i]
		switch d.Verdict {
		case analyze.VerdictWorse, analyze.VerdictBetter, analyze.VerdictWithinNoise:
			m.printf("\n%s vs %s success rate: %s (%s).\n", m.c.Sides[i].Label, m.base().Label, verdictWord(d), testNames(d.Sig)+", "+pText(d.Sig.PValue))
		}
	}
	m.printf("\n**Error Analysis:**\n\n")
	for _, s := range m.c.Sides {
		m.errorAnalysis(s)
	}
}

// errorDetails is "20 × 403 Forbidden" or "No errors".
func errorDetails(rs []results.Result) string {
	rows := errorRows(rs)
	if len(rows) == 0 {
		return "No errors"
	}
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%s × %s", fmtCount(r.count), r.class))
	}
	return strings.Join(parts, ", ")
}

func (m *cmpMD) errorAnalysis(s *analyze.Side) {
	rows := errorRows(s.Results)
	if len(rows) == 0 {
		m.printf("**%s:** No errors across all %s requests.\n\n", s.Label, fmtCount(s.Requests))
		return
	}
	m.printf("**%s:** %s failed requests (%s of %s):\n", s.Label, fmtCount(s.Failures), fmtPercent(s.Failures, s.Requests), fmtCount(s.Requests))
	for _, r := range rows {
		line := fmt.Sprintf("- %s × %s (%s)", fmtCount(r.count), r.class, r.kind)
		if r.sample != "" {
			line += ": " + code(r.sample)
		}
		m.printf("%s\n", line)
	}
	if len(s.Results) > 1 {
		var per []string
		for _, r := range s.Results {
			per = append(per, fmt.Sprintf("iteration %d: %s", r.Iteration, fmtCount(r.Requests-r.Successes)))
		}
		m.printf("- By iteration: %s\n", strings.Join(per, ", "))
	}
	m.printf("\n")
}

// resources compares components by CPU per request first: absolute cores
// scale with throughput and mislead across runs of different speed.
func (m *cmpMD) resources() {
	if len(m.c.Resources) == 0 {
		return
	}
	m.printf("### Resource Utilization Comparison\n\n")
	m.printf("CPU per 1,000 requests is the comparable figure: absolute cores scale with throughput, so a slower run always looks cheaper in cores.\n\n")
	for _, r := range m.c.Resources {
		m.resourceTable(r)
	}
	m.resourceBars()
}

func (m *cmpMD) resourceTable(r analyze.ResourceRow) {
	var names []string
	for _, u := range r.Usage {
		if u != nil && !slices.Contains(names, u.Name) {
			names = append(names, u.Name)
		}
	}
	title := r.Key
	if len(names) > 1 || (len(names) == 1 && names[0] != r.Key) {
		title += ": " + strings.Join(names, " vs ")
	}
	m.printf("#### %s\n\n", title)
	mdHeader(&m.b, slices.Concat([]string{"Metric"}, m.labels(), m.diffHeads())...)
	type def struct {
		name string
		get  func(*analyze.ComponentSummary) float64
		fmt  func(float64) string
	}
	defs := []def{
		{"CPU per 1k requests", func(u *analyze.ComponentSummary) float64 { return u.CPUSecondsPer1k }, cpuSecs},
		{"Mean CPU (load)", func(u *analyze.ComponentSummary) float64 { return u.CPUMean }, fmtCores},
		{"Peak CPU", func(u *analyze.ComponentSummary) float64 { return u.CPUPeak }, fmtCores},
		{"Idle CPU", func(u *analyze.ComponentSummary) float64 { return u.CPUIdle }, fmtCores},
		{"CPU limit", func(u *analyze.ComponentSummary) float64 { return u.CPULimit }, limitCores},
		{"Throttled periods", func(u *analyze.ComponentSummary) float64 { return u.ThrottledRatio }, analyze.FormatFraction},
		{"Memory (mean)", func(u *analyze.ComponentSummary) float64 { return u.MemMean }, fmtMB},
		{"Memory (peak)", func(u *analyze.ComponentSummary) float64 { return u.MemPeak }, fmtMB},
	}
	b := r.Usage[m.c.Baseline]
	for _, d := range defs {
		cells := []string{bold(d.name)}
		for _, u := range r.Usage {
			v := "—"
			if u != nil {
				v = d.fmt(d.get(u))
			}
			cells = append(cells, v)
		}
		for _, i := range m.others() {
			cells = append(cells, resourceDiff(b, r.Usage[i], d.get))
		}
		mdRow(&m.b, cells...)
	}
	m.printf("\n")
}

func resourceDiff(b, u *analyze.ComponentSummary, get func(*analyze.ComponentSummary) float64) string {
	if b == nil || u == nil {
		return "—"
	}
	x, y := get(b), get(u)
	switch {
	case x == y:
		return "same"
	case x <= 0:
		return "—"
	case y > x:
		return analyze.FormatRatio(y/x) + " more"
	}
	return analyze.FormatRatio(x/y) + " less"
}

func cpuSecs(v float64) string {
	if v <= 0 {
		return notMeasured
	}
	return fmtSig(v, 3) + " CPU-s"
}

func limitCores(v float64) string {
	if v <= 0 {
		return "none"
	}
	return fmtCores(v)
}

// resourceBars charts CPU per 1k requests of every component and side.
func (m *cmpMD) resourceBars() {
	var labels, suffix []string
	var values []float64
	for _, r := range m.c.Resources {
		for i, u := range r.Usage {
			if u == nil || u.CPUSecondsPer1k <= 0 {
				continue
			}
			labels = append(labels, m.c.Sides[i].Label+" "+u.Name)
			values = append(values, u.CPUSecondsPer1k)
			suffix = append(suffix, "")
		}
	}
	if len(labels) < 2 {
		return
	}
	m.b.WriteString(textBars("CPU-seconds per 1,000 requests:", labels, values, cpuSecs, suffix))
	m.printf("\n")
}
