package demo

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/store"
)

// Files the demo adds to a run directory.
const (
	CompareFile = "compare.md"
	CompareHTML = "compare.html"
	// ReportFile is a run's own HTML report, linked from the demo's page
	// (Options.Sinks write it).
	ReportFile = "report.html"
)

// demo is one demo in progress: the lab's plan and what the steps found.
type demo struct {
	o       Options
	base    *plan.Plan
	stackOf map[string]string
	// oauth is 3x-oauth's target, run in step 3 only (see splitRateLimited).
	oauth *plan.Target
	out   *Outcome
	// printed are each step's lines as printed, by step number.
	printed map[int][]string
}

func newDemo(ctx context.Context, o Options) (*demo, error) {
	p, stackOf, err := labPlan(ctx, o)
	if err != nil {
		return nil, err
	}
	d := &demo{o: o, base: p, stackOf: stackOf, out: &Outcome{}, printed: map[int][]string{}}
	d.splitRateLimited()
	return d, nil
}

// subPlan is the lab's plan for targets ts under load l, named
// "demo-"+name, with the demo's SLO.
func (d *demo) subPlan(name string, ts []plan.Target, l plan.Load) *plan.Plan {
	p := *d.base
	p.Name, p.Load, p.Given = "demo-"+name, l, nil
	p.Targets = append([]plan.Target(nil), ts...)
	slo := *d.o.SLO
	p.SLO = &slo
	return &p
}

// options are the orchestrator's options for p, sampling the lab.
func (d *demo) options(ctx context.Context, p *plan.Plan) (runner.Options, error) {
	obs, err := sampling.Observe(ctx, p, sampling.Options{LabDir: d.o.LabDir, Platforms: d.o.Platforms})
	if err != nil {
		return runner.Options{}, err
	}
	return runner.Options{Plan: p, Out: d.o.Out, Version: d.o.Version, Log: d.o.Log,
		CommandLine: []string{"authbench", "demo"}, Monitor: obs.Monitor, Reviews: obs.Reviews, Gateways: obs.Gateways,
		Lab: obs.Lab, Unobserved: obs.Unobserved, Faults: obs.Faults, Sinks: d.o.Sinks}, nil
}

// run runs p through the orchestrator.
func (d *demo) run(ctx context.Context, p *plan.Plan) (*runner.Outcome, error) {
	ro, err := d.options(ctx, p)
	if err != nil {
		return nil, err
	}
	return runner.Run(ctx, ro)
}

// capacity searches the capacity of p's targets, each within budget.
func (d *demo) capacity(ctx context.Context, p *plan.Plan, min float64, budget time.Duration) (*runner.CapacityOutcome, error) {
	ro, err := d.options(ctx, p)
	if err != nil {
		return nil, err
	}
	if openLab(d.o).Platform() == lab.PlatformKube && ro.Monitor != nil {
		// The kube lab samples through Prometheus, which needs Settle
		// (4 s) after each window: a search of 2 s steps would spend most
		// of its budget waiting. Its steps go unsampled; the runs are sampled.
		fmt.Fprintln(d.o.Log, "==> capacity steps not sampled on the kube lab (its Prometheus settles after each step)")
		ro.Monitor = nil
	}
	co := runner.CapacityOptions{Options: ro, Step: d.o.Step,
		Search: capacity.Options{SLO: *p.SLO, Min: min, Budget: budget}}
	return runner.Capacity(ctx, co)
}

// openLoad is an open loop at rate of the demo's shape.
func (d *demo) openLoad(rate float64) plan.Load {
	return plan.Load{Rate: rate, Duration: plan.Duration(d.o.OpenDuration), Iterations: d.o.OpenIterations,
		Concurrency: d.o.Concurrency}
}

// compare compares the targets of one run (sides interleaved by
// iteration) and writes the comparison beside it.
func (d *demo) compare(r *runner.Outcome) (*analyze.Comparison, error) {
	hs, err := store.ReadHistograms(r.Dir, r.Run)
	if err != nil {
		return nil, fmt.Errorf("comparing the stacks: %w", err)
	}
	files := []analyze.RunFiles{{Dir: r.Dir, Hists: hs, Timeline: r.Timeline}}
	c, err := analyze.Compare([]*results.Run{r.Run}, analyze.CompareOptions{Files: files})
	if err != nil {
		return nil, fmt.Errorf("comparing the stacks: %w", err)
	}
	var md, page bytes.Buffer
	if err := report.CompareMarkdown(&md, c); err != nil {
		return c, fmt.Errorf("rendering the comparison: %w", err)
	}
	if err := report.CompareHTML(&page, c); err != nil {
		return c, fmt.Errorf("rendering the comparison: %w", err)
	}
	if err := store.WriteFile(filepath.Join(r.Dir, CompareFile), md.Bytes()); err != nil {
		return c, err
	}
	return c, store.WriteFile(filepath.Join(r.Dir, CompareHTML), page.Bytes())
}
