package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/capacity"
)

// CapacityRun is one capacity run to compare: a label (name and date)
// and its searches (capacity.json).
type CapacityRun struct {
	Label    string
	Searches []*capacity.Result
}

// capacityComparison is what both formats show: per target, the capacity
// each run found, and its latency curve side by side.
type capacityComparison struct {
	warnings []string
	tables   []htmlTable
	charts   []chart
}

// compareCapacity lays out capacity runs against runs[base]. A curve is a
// run's points at each offered rate; two runs are compared by the
// capacity found and by P99 at the rates both measured.
func compareCapacity(runs []CapacityRun, base int) capacityComparison {
	var c capacityComparison
	for _, target := range capacityTargets(runs) {
		res := make([]*capacity.Result, len(runs))
		for i, r := range runs {
			for _, s := range r.Searches {
				if s.Target == target {
					res[i] = s
				}
			}
		}
		c.warnings = append(c.warnings, sloWarning(target, runs, res)...)
		c.tables = append(c.tables, capacitySummary(target, runs, res, base), curveTable(target, runs, res))
		c.charts = append(c.charts, curveChart(target, runs, res))
	}
	return c
}

func capacityTargets(runs []CapacityRun) []string {
	var out []string
	for _, r := range runs {
		for _, s := range r.Searches {
			if !slices.Contains(out, s.Target) {
				out = append(out, s.Target)
			}
		}
	}
	return out
}

func sloWarning(target string, runs []CapacityRun, res []*capacity.Result) []string {
	var first *capacity.Result
	for i, r := range res {
		if r == nil {
			continue
		}
		if first == nil {
			first = r
		} else if r.SLO != first.SLO {
			return []string{fmt.Sprintf("%s: %s searched under %s, not %s: capacities under different SLOs are not comparable.",
				target, runs[i].Label, capacity.SLOText(r.SLO), capacity.SLOText(first.SLO))}
		}
	}
	return nil
}

func capacitySummary(target string, runs []CapacityRun, res []*capacity.Result, base int) htmlTable {
	t := htmlTable{ID: "capacity-" + target, Title: "Capacity of " + target,
		Head: []string{"Run", "SLO", "Capacity (offered)", "vs " + runs[base].Label, "Breaks by", "Served at capacity", "P99 at capacity", "Stop"}}
	for i, r := range res {
		if r == nil {
			t.Rows = append(t.Rows, []string{runs[i].Label, "", "not searched", "", "", "", "", ""})
			continue
		}
		ratio := ""
		if b := res[base]; b != nil && b.Capacity > 0 && i != base {
			ratio = fmtSigned(r.Capacity/b.Capacity - 1)
		}
		p99 := notMeasured
		if r.Spread != nil {
			p99 = fmtLatency(r.Spread.P99Max)
		}
		fail := "none"
		if r.FirstFail > 0 {
			fail = fmtRPS(r.FirstFail)
		}
		t.Rows = append(t.Rows, []string{runs[i].Label, capacity.SLOText(r.SLO), fmtRPS(r.Capacity), ratio, fail,
			fmtRPS(r.Sustained), p99, r.Stop})
	}
	t.Note = "Capacity is the highest offered rate that met the SLO; the true capacity lies between it and the rate it breaks by."
	return t
}

// curveTable puts each run's P99 at every offered rate any of them
// measured (the curve's points: the worst step at each rate).
func curveTable(target string, runs []CapacityRun, res []*capacity.Result) htmlTable {
	t := htmlTable{ID: "curve-" + target, Title: "P99 by offered rate, " + target, Head: []string{"Offered"}}
	var rates []float64
	for i, r := range res {
		t.Head = append(t.Head, runs[i].Label)
		if r == nil {
			continue
		}
		for _, p := range r.Curve {
			if !slices.Contains(rates, p.Offered) {
				rates = append(rates, p.Offered)
			}
		}
	}
	slices.Sort(rates)
	for _, rate := range rates {
		row := []string{fmtRPS(rate)}
		for _, r := range res {
			cell := "—"
			if r != nil {
				for _, p := range r.Curve {
					if p.Offered == rate {
						cell = fmtLatency(p.P99)
					}
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func curveChart(target string, runs []CapacityRun, res []*capacity.Result) chart {
	spec := &chartSpec{Kind: "lines", X: axisSpec{Label: "offered", Unit: "req/s"}, Y: axisSpec{Label: "P99", Unit: "ms"}}
	for i, r := range res {
		if r == nil {
			continue
		}
		var xs, ys []float64
		for _, p := range r.Curve {
			xs, ys = append(xs, p.Offered), append(ys, p.P99)
		}
		spec.Series = append(spec.Series, seriesSpec{Label: runs[i].Label, Color: seriesColor(i), X: xs, Y: ys})
	}
	return chart{ID: "curve-chart-" + target, Title: "P99 against offered load, " + target,
		Caption: "Each run's curve: P99 at each offered rate (the worst step at that rate).", Spec: spec}
}

// CompareCapacityMarkdown compares capacity runs: per target, the
// capacity each found against runs[base], then their curves.
func CompareCapacityMarkdown(w io.Writer, runs []CapacityRun, base int) error {
	c := compareCapacity(runs, base)
	var b strings.Builder
	b.WriteString("# Capacity comparison\n\n")
	for _, wn := range c.warnings {
		fmt.Fprintf(&b, "> ⚠ %s\n\n", wn)
	}
	for _, t := range c.tables {
		fmt.Fprintf(&b, "## %s\n\n| %s |\n|%s\n", t.Title, strings.Join(t.Head, " | "), strings.Repeat(" --- |", len(t.Head)))
		for _, r := range t.Rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
		}
		if t.Note != "" {
			fmt.Fprintf(&b, "\n%s\n", t.Note)
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing capacity comparison: %w", err)
	}
	return nil
}

// CompareCapacityHTML is CompareCapacityMarkdown as a self-contained page
// with each target's curves drawn.
func CompareCapacityHTML(w io.Writer, runs []CapacityRun, base int) error {
	c := compareCapacity(runs, base)
	page := htmlPage{Title: "Capacity comparison", Warnings: c.warnings, Tables: c.tables, Charts: c.charts,
		Footer: "Generated by authbench. Self-contained: the chart library and data are inline; nothing is loaded from the network."}
	return writePage(w, page, nil)
}
