// Package runner is the orchestrator: it carries a plan through its
// iterations, its samplers and its files. Session holds what every
// measured run shares (the run id, the environment fingerprint, the
// redacted command line, the run directory, sampling, interruption); Run
// drives one for `authbench run` and `demo`, Capacity one for a capacity
// search, pkg/ladder one for the ladder. Where the load executes is the
// Executor seam: this process (Local), or pods (pkg/kube/pods). What a
// finished run becomes besides run.json is the Sinks' (Record): the
// runner renders, indexes and publishes nothing itself.
package runner

import (
	"context"
	"errors"
	"io"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// Options configure one run.
type Options struct {
	// Plan is completed and validated by Run.
	Plan *plan.Plan
	// Out is the runs directory. Default store.DefaultRunsDir.
	Out string
	// CommandLine is recorded in run.json after redaction.
	CommandLine []string
	// Version is authbench's version, recorded in run.json.
	Version string
	// Log receives human messages (stderr in the CLI). Default io.Discard.
	Log io.Writer
	// Progress, when set, is shown every 250 ms a recorded phase runs
	// (the CLI draws a line when stdout is a terminal).
	Progress ProgressView
	// Monitor, when set, samples components during the run.
	Monitor *observe.Monitor
	// Reviews, when set, counts the API server's reviews per iteration.
	Reviews observe.ReviewCounter
	// Gateways, when set, are read around each iteration of a target
	// they serve.
	Gateways observe.GatewayReaders
	// Lab describes the lab the plan targets, if any.
	Lab *results.Lab
	// Faults, when set, reads the lab's faults of the run's window.
	Faults FaultLog
	// Unobserved, when set, says which lab the plan targets without being
	// observed, and why.
	Unobserved *results.UnobservedLab
	// Executor runs the load. Default NewLocal(): this process.
	Executor Executor
	// Sinks take the finished run after run.json is written (Record).
	// Default none.
	Sinks []Sink
	// Watch, when set, sees every recorded phase live (the CLI's --live).
	Watch Watcher
}

// common is what the run's session takes of the options.
func (o *Options) common() Common {
	if o.Out == "" {
		o.Out = store.DefaultRunsDir
	}
	return Common{Out: o.Out, CommandLine: o.CommandLine, Version: o.Version, Log: o.Log,
		Monitor: o.Monitor, Reviews: o.Reviews, Gateways: o.Gateways, Lab: o.Lab, Faults: o.Faults, Executor: o.Executor, Sinks: o.Sinks, Watch: o.Watch}
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

// Run executes the plan and records the run directory (Record). Setup
// failures are returned as errors; per-request failures are data in the
// results. Once measuring has begun the Outcome is always returned, also
// with an error.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	p := o.Plan
	if err := p.Ready(); err != nil {
		return nil, err
	}
	s, err := open(ctx, o, p)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	e := &execution{s: s, plan: p, progress: o.Progress}
	interrupted := e.execute(ctx)
	s.Finish(interrupted)
	s.Run.SLO = analyze.EvaluateSLO(p, s.Run.Results)
	s.Run.Capacity = analyze.PlanCapacity(s.Run, analyze.CapacityOptionsFrom(p))
	if err := s.Write(ctx); err != nil {
		return s.Outcome(), err
	}
	return s.Outcome(), Interrupted(s.Run)
}

// open starts the session of a run of p (completed and validated) and
// creates its directory.
func open(ctx context.Context, o Options, p *plan.Plan) (*Session, error) {
	s, err := NewSession(ctx, o.common(), p.Name, p.Client, p.Targets)
	if err != nil {
		return nil, err
	}
	s.Run.Plan, s.Run.UnobservedLab = *p, o.Unobserved
	if err := s.CreateDir(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Interrupted returns ErrInterrupted for a partial run, else nil.
func Interrupted(run *results.Run) error {
	if run.Partial {
		return ErrInterrupted
	}
	return nil
}
