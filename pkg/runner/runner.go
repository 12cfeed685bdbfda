// Package runner is the orchestrator: it carries a plan through its
// iterations, its samplers and its files. Session holds what every
// measured run shares (the run id, the environment fingerprint, the
// redacted command line, the run directory, sampling, interruption); Run
// drives one for `authbench run` and `demo`, pkg/ladder drives one for the
// ladder. Where the load executes is the Executor seam: this process
// (Local) today, pods in a cluster next.
package runner

import (
	"context"
	"errors"
	"io"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Options configure one run.
type Options struct {
	// Plan is completed and validated by Run.
	Plan *plan.Plan
	// Out is the runs directory. Default "runs".
	Out string
	// CommandLine is recorded in run.json after redaction.
	CommandLine []string
	// Version is authbench's version, recorded in run.json.
	Version string
	// Log receives human messages (stderr in the CLI). Default io.Discard.
	Log io.Writer
	// Progress, when set, receives a redrawn progress line every 250 ms
	// (the CLI sets it only when stdout is a terminal).
	Progress io.Writer
	// Monitor, when set, samples components during the run.
	Monitor *observe.Monitor
	// Reviews, when set, counts the API server's reviews per iteration.
	Reviews observe.ReviewCounter
	// Lab describes the lab the plan targets, if any.
	Lab *results.Lab
	// Unobserved, when set, says which lab the plan targets without being
	// observed, and why (see Observe).
	Unobserved *results.UnobservedLab
	// Executor runs the load. Default NewLocal(): this process.
	Executor Executor
}

// Outcome is what a run produced.
type Outcome struct {
	// Dir is the run directory.
	Dir string
	Run *results.Run
	// Timeline is what timeline.json holds.
	Timeline *results.Timeline
}

// ErrInterrupted is the one interruption signal of every orchestrated
// run (run, ladder, demo). It is returned with a complete Outcome whose
// Run.Partial is set: what was measured has been written.
var ErrInterrupted = errors.New("run interrupted; partial results written")

// Run executes the plan and writes the run directory. Setup failures are
// returned as errors; per-request failures are data in the results. Once
// measuring has begun the Outcome is always returned, also with an error.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if o.Out == "" {
		o.Out = "runs"
	}
	p := o.Plan
	p.Complete()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := Common{Out: o.Out, CommandLine: o.CommandLine, Version: o.Version, Log: o.Log,
		Monitor: o.Monitor, Reviews: o.Reviews, Lab: o.Lab, Executor: o.Executor}
	s, err := NewSession(ctx, c, p.Name, p.Client, p.Targets)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	s.Run.Plan = *p
	s.Run.UnobservedLab = o.Unobserved
	if err := s.CreateDir(); err != nil {
		return nil, err
	}
	e := &execution{s: s, plan: p, progress: o.Progress}
	interrupted := e.execute(ctx)
	s.Finish(interrupted)
	s.Run.SLO = analyze.EvaluateSLO(p, s.Run.Results)
	s.Run.Capacity = analyze.PlanCapacity(s.Run, analyze.CapacityOptionsFrom(p))
	if err := s.Write(); err != nil {
		return s.Outcome(), err
	}
	return s.Outcome(), Interrupted(s.Run)
}

// Interrupted returns ErrInterrupted for a partial run, else nil.
func Interrupted(run *results.Run) error {
	if run.Partial {
		return ErrInterrupted
	}
	return nil
}
