package demo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/store"
)

// PageSuffix ends the demo page's file name in the runs directory.
const PageSuffix = "-demo.html"

// page is step 5: the verdict, printed, and one HTML page of every step,
// whose path is printed last.
func (d *demo) page() error {
	start := time.Now()
	d.out.Verdict = verdict(d.out)
	p := report.DemoPage{Title: "authbench demo: what the migration reports measured, and what it meant",
		Subtitle: []string{fmt.Sprintf("Lab %s, stacks %v, SLO %s.", d.o.LabDir, d.o.Stacks, capacity.SLOText(*d.o.SLO))},
		Verdict:  d.out.Verdict, Steps: d.sections()}
	var b bytes.Buffer
	err := report.DemoHTML(&b, p)
	if err == nil {
		if err = os.MkdirAll(d.o.Out, 0o755); err == nil {
			d.out.Report = filepath.Join(d.o.Out, time.Now().UTC().Format(store.DirTimeFormat)+PageSuffix)
			err = store.WriteFile(d.out.Report, b.Bytes())
		}
	}
	secs := time.Since(start).Seconds()
	d.out.Steps = append(d.out.Steps, StepTime{N: totalSteps, Title: "the page", Seconds: secs})
	d.printLines(totalSteps, d.out.Verdict, secs)
	if err != nil {
		return fmt.Errorf("writing the demo's page: %w", err)
	}
	fmt.Fprintf(d.o.Stdout, "Report: %s\n", d.out.Report)
	return nil
}

// sections lays out each step that ran.
func (d *demo) sections() []report.DemoStep {
	var out []report.DemoStep
	if st := d.out.Closed; st != nil {
		out = append(out, report.DemoStep{ID: "step1", Title: "1. The migration reports' comparison, closed loop",
			Lines: d.linesOf(1), Findings: st.Saturation, Comparison: st.Comparison, Runs: runsOf(st.Run),
			Links: d.links(st.Run, true)})
	}
	if st := d.out.Properly; st != nil {
		s := report.DemoStep{ID: "step2", Title: "2. Asked properly: capacity under the SLO, latency below it",
			Lines: d.linesOf(2), Comparison: st.Comparison, SLOP99: report.SLOP99(st.Capacity.Run),
			Curves: curves(st.Capacity), Runs: runsOf(&st.Capacity.Outcome, st.Open),
			Links: append(d.links(&st.Capacity.Outcome, false), d.links(st.Open, true)...)}
		out = append(out, s)
	}
	if st := d.out.Limit; st != nil {
		out = append(out, d.limitSection(st))
	}
	if len(d.out.Ladders) > 0 {
		s := report.DemoStep{ID: "step4", Title: "4. The ladder: where each stack's latency goes", Lines: d.linesOf(4)}
		for _, l := range d.out.Ladders {
			s.Ladders, s.Runs = append(s.Ladders, l.Ladder), append(s.Runs, l.Run)
			s.Links = append(s.Links, d.links(&runner.Outcome{Dir: l.Dir, Run: l.Run}, false)...)
		}
		out = append(out, s)
	}
	return out
}

// limitSection is step 3's: the throttling finding, the limited stack's
// curve, and the three runs.
func (d *demo) limitSection(st *LimitStep) report.DemoStep {
	s := report.DemoStep{ID: "step3", Title: "3. The migration reports' misconfiguration: " + st.Limit.Component + "=" + st.Limit.String(),
		Lines: d.linesOf(3), Runs: runsOf(st.Limited, st.Lifted)}
	if st.Throttling != nil {
		s.Findings = []results.Finding{*st.Throttling}
	}
	if st.AuthzErrors != nil {
		s.Findings = append(s.Findings, *st.AuthzErrors)
	}
	if st.Capacity != nil {
		s.Curves, s.SLOP99 = curves(st.Capacity), report.SLOP99(st.Capacity.Run)
		s.Runs = append(s.Runs, st.Capacity.Run)
	}
	for _, r := range []*runner.Outcome{st.Limited, capOutcome(st.Capacity), st.Lifted} {
		s.Links = append(s.Links, d.links(r, false)...)
	}
	return s
}

// linesOf are step n's printed lines (kept as printed).
func (d *demo) linesOf(n int) []string { return d.printed[n] }

// links lead from the page to a run's report, summary and comparison.
func (d *demo) links(r *runner.Outcome, compared bool) []report.DemoLink {
	if r == nil || r.Dir == "" {
		return nil
	}
	rel, err := filepath.Rel(d.o.Out, r.Dir)
	if err != nil {
		rel = r.Dir
	}
	name := r.Run.Name
	out := []report.DemoLink{{Label: name + " report", Href: filepath.ToSlash(filepath.Join(rel, ReportFile))},
		{Label: name + " summary", Href: filepath.ToSlash(filepath.Join(rel, results.SummaryFile))}}
	if compared {
		out = append(out, report.DemoLink{Label: name + " comparison", Href: filepath.ToSlash(filepath.Join(rel, CompareHTML))})
	}
	return out
}

func runsOf(rs ...*runner.Outcome) []*results.Run {
	var out []*results.Run
	for _, r := range rs {
		if r != nil && r.Run != nil {
			out = append(out, r.Run)
		}
	}
	return out
}

func capOutcome(c *runner.CapacityOutcome) *runner.Outcome {
	if c == nil {
		return nil
	}
	return &c.Outcome
}

// curves are a capacity run's searches as the page's curves.
func curves(c *runner.CapacityOutcome) []report.Curve {
	var out []report.Curve
	for _, s := range c.Searches {
		cv := report.Curve{Target: s.Target, Capacity: s.Capacity, FirstFail: s.FirstFail}
		for _, p := range s.Curve {
			cv.Points = append(cv.Points, report.CurvePoint{Offered: p.Offered, Achieved: p.Achieved,
				P50: p.P50, P95: p.P95, P99: p.P99, SuccessRate: p.SuccessRate})
		}
		out = append(out, cv)
	}
	return out
}
