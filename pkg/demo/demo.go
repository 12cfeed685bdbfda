// Package demo is `make demo`: it starts the lab's two stacks, runs the
// same load against each, writes each stack's summary and a comparison,
// prints a short verdict, and stops the lab it started.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/scenario"
)

// Options configure the demo. Zero values take the defaults noted.
type Options struct {
	// Requests per iteration. Default 2000.
	Requests int64
	// Concurrency. Default 50.
	Concurrency int
	// Iterations. Default 3.
	Iterations int
	// Warmup requests per stack before the first iteration, not recorded:
	// the first requests pay for connections, TLS and cold caches.
	// Default 10% of Requests; negative disables.
	Warmup int64
	// Rate, when positive, runs the open loop at that total rate instead.
	Rate float64
	// LabDir is the lab directory. Default lab.DefaultDir(). A lab already
	// running there is used as it is and left running.
	LabDir string
	// Stacks are the lab stacks benchmarked (see lab.Stacks()). Default
	// 2x and 3x.
	Stacks []string
	// Limits are applied when the demo starts the lab (e.g. oauth2-proxy=50m).
	Limits []lab.Limit
	// Keep leaves a lab the demo started running afterwards.
	Keep bool
	// Supervisor is the command that runs the lab in the background.
	// Default: this executable's `lab serve` (see lab.UpOptions).
	Supervisor []string
	// Out is the runs directory. Default "runs".
	Out string
	// Version is recorded in run.json.
	Version string
	// Stdout receives the verdict; Log receives progress. Defaults discard.
	Stdout, Log io.Writer
}

// Outcome is what the demo produced.
type Outcome struct {
	Runs       []*runner.Outcome
	Comparison *analyze.Comparison
	// CompareFile is the Markdown comparison's path.
	CompareFile string
}

func (o *Options) complete() {
	if o.Requests == 0 {
		o.Requests = lab.ScenarioRequests
	}
	if o.Concurrency == 0 {
		o.Concurrency = lab.ScenarioConcurrency
	}
	if o.Iterations == 0 {
		o.Iterations = lab.ScenarioIterations
	}
	if o.Warmup == 0 {
		o.Warmup = max(o.Requests/10, int64(o.Concurrency))
	}
	if o.LabDir == "" {
		o.LabDir = lab.DefaultDir()
	}
	if len(o.Stacks) == 0 {
		o.Stacks = []string{lab.Stack2x, lab.Stack3x}
	}
	if o.Out == "" {
		o.Out = "runs"
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// Run runs the demo. Runs completed before an interruption are kept.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	o.complete()
	stacks, err := lab.ParseStacks(o.Stacks)
	if err != nil {
		return nil, err
	}
	o.Stacks = stacks
	stop, err := ensureLab(ctx, &o)
	if err != nil {
		return nil, err
	}
	defer stop()
	p, err := labPlan(o)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	for _, t := range p.Targets {
		r, err := runTarget(ctx, o, p, t)
		if r != nil {
			out.Runs = append(out.Runs, r)
		}
		if err != nil {
			return out, err
		}
	}
	if err := compare(o, out); err != nil {
		return out, err
	}
	return out, verdict(o.Stdout, out)
}

// ensureLab starts the lab unless one is running, and returns how to stop
// what it started.
func ensureLab(ctx context.Context, o *Options) (stop func(), err error) {
	if _, err := lab.Open(o.LabDir).Components(); err == nil {
		fmt.Fprintf(o.Log, "==> using the lab already running in %s\n", o.LabDir)
		return func() {}, nil
	}
	fmt.Fprintf(o.Log, "==> starting the lab (stacks %s) in %s\n", strings.Join(o.Stacks, ", "), o.LabDir)
	start := time.Now()
	cfg := lab.Config{Stacks: o.Stacks, Limits: o.Limits}
	if _, err := lab.Open(o.LabDir).Up(ctx, lab.UpOptions{Config: cfg, Out: o.Log, Supervisor: o.Supervisor}); err != nil {
		return nil, fmt.Errorf("starting the lab: %w", err)
	}
	fmt.Fprintf(o.Log, "==> lab ready in %.1fs\n", time.Since(start).Seconds())
	if o.Keep {
		return func() {}, nil
	}
	return func() {
		fmt.Fprintln(o.Log, "==> stopping the lab")
		if err := lab.Open(o.LabDir).Down(context.WithoutCancel(ctx), o.Log); err != nil {
			fmt.Fprintf(o.Log, "warning: stopping the lab: %v\n", err)
		}
	}, nil
}

// labPlan turns the running lab's scenario into the demo's plan.
func labPlan(o Options) (*plan.Plan, error) {
	y, err := lab.Open(o.LabDir).Scenario()
	if err != nil {
		return nil, fmt.Errorf("reading the lab's scenario: %w", err)
	}
	p, err := scenario.Parse(filepath.Join(o.LabDir, "scenario.yaml"), y)
	if err != nil {
		return nil, fmt.Errorf("parsing the lab's scenario: %w", err)
	}
	var targets []plan.Target
	for _, st := range o.Stacks {
		for _, t := range p.Targets {
			if t.Name == lab.TargetName(st) {
				targets = append(targets, t)
			}
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("the lab in %s runs none of the stacks %s", o.LabDir, strings.Join(o.Stacks, ", "))
	}
	p.Targets = targets
	p.Load.Requests, p.Load.Concurrency, p.Load.Iterations = o.Requests, o.Concurrency, o.Iterations
	p.Load.Rate = o.Rate
	p.Load.WarmupRequests, p.Load.WarmupDuration = max(o.Warmup, 0), 0
	if o.Rate > 0 {
		p.Load.Duration = 0
	}
	return p, nil
}

// runTarget benchmarks one stack as its own run, sampling the lab.
func runTarget(ctx context.Context, o Options, p *plan.Plan, t plan.Target) (*runner.Outcome, error) {
	one := *p
	one.Name = "demo-" + t.Name
	one.Targets = []plan.Target{t}
	obs, err := runner.Observe(ctx, &one, runner.ObserveOptions{LabDir: o.LabDir})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "==> %s: %d iterations x %d requests at concurrency %d\n",
		t.Name, o.Iterations, o.Requests, o.Concurrency)
	r, err := runner.Run(ctx, runner.Options{Plan: &one, Out: o.Out, Version: o.Version,
		Log: o.Log, Monitor: obs.Monitor, Reviews: obs.Reviews, Lab: obs.Lab, CommandLine: []string{"authbench", "demo"}})
	if err != nil && !errors.Is(err, runner.ErrInterrupted) {
		return r, fmt.Errorf("benchmarking %s: %w", t.Name, err)
	}
	return r, err
}
