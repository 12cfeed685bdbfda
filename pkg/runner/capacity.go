package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// CapacityOptions configure a capacity run: each target of the plan is
// searched in turn (capacity.Search), each step an open-loop phase of
// the one orchestrator (Session.Measure, through its Executor).
type CapacityOptions struct {
	Options
	// Search configures every target's search. Its SLO, when zero, is the
	// plan's.
	Search capacity.Options
	// Step is how long each step's load lasts. Default capacity.DefaultStep.
	Step time.Duration
}

// CapacityOutcome is what a capacity run produced: the run directory,
// whose Results are the steps, and one search result per target.
type CapacityOutcome struct {
	Outcome
	Searches []*capacity.Result
}

// Capacity searches the capacity of the plan's targets under its SLO and
// writes a run directory marked as a capacity run: one Result per step
// (Iteration is the step's number, TargetRPS its offered rate), the
// searches in capacity.File, and findings and sizing advice from the
// steps at the capacity found. Interrupted, it keeps what it measured and
// returns ErrInterrupted.
func Capacity(ctx context.Context, o CapacityOptions) (*CapacityOutcome, error) {
	if err := o.complete(); err != nil {
		return nil, err
	}
	p := o.Plan
	c := Common{Out: o.Out, CommandLine: o.CommandLine, Version: o.Version, Log: o.Log,
		Monitor: o.Monitor, Reviews: o.Reviews, Lab: o.Lab, Executor: o.Executor}
	s, err := NewSession(ctx, c, p.Name, p.Client, p.Targets)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	s.Run.Plan, s.Run.Kind, s.Run.UnobservedLab = *p, results.KindCapacity, o.Unobserved
	if err := s.CreateDir(); err != nil {
		return nil, err
	}
	cs := &capacitySearch{execution: execution{s: s, plan: p}, o: o}
	searches, err := cs.searchAll(ctx)
	interrupted := ctx.Err() != nil || errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		fmt.Fprintf(s.Log(), "error: %v\n", err)
	}
	out, werr := finishCapacity(s, p, searches, interrupted)
	switch {
	case werr != nil:
		return out, werr
	case interrupted:
		return out, ErrInterrupted
	}
	return out, err
}

// complete fixes the plan a capacity run records (an open loop of Step
// per phase; each step's own rate is in its Result), then completes and
// validates it and the search's options, before any load.
func (o *CapacityOptions) complete() error {
	if o.Out == "" {
		o.Out = "runs"
	}
	if o.Step <= 0 {
		o.Step = capacity.DefaultStep
	}
	p := o.Plan
	p.Load.Duration, p.Load.Requests, p.Load.Iterations = plan.Duration(o.Step), 0, 1
	if p.Load.Rate <= 0 {
		p.Load.Rate = max(o.Search.Min, capacity.DefaultMin)
	}
	if o.Search.SLO == (plan.SLO{}) && p.SLO != nil {
		o.Search.SLO = *p.SLO
	}
	p.Complete()
	if err := p.Validate(); err != nil {
		return err
	}
	return o.Search.Complete()
}

// capacitySearch is `authbench capacity`'s schedule over a session.
type capacitySearch struct {
	execution
	o CapacityOptions
}

// searchAll probes the targets, starts sampling, warms up, then searches
// each target in turn.
func (c *capacitySearch) searchAll(ctx context.Context) ([]*capacity.Result, error) {
	for i := range c.plan.Targets {
		c.s.Probe(ctx, i)
	}
	defer c.s.Sample(ctx)()
	if c.warmup(ctx) {
		return nil, context.Canceled
	}
	var out []*capacity.Result
	for i, t := range c.plan.Targets {
		fmt.Fprintf(c.s.Log(), "%s: searching capacity under %s\n", t.Name, capacity.SLOText(c.o.Search.SLO))
		r, err := capacity.Search(ctx, c.stepper(i), c.o.Search)
		if r != nil {
			r.Target = t.Name
			out = append(out, r)
		}
		if err != nil {
			return out, fmt.Errorf("searching %s: %w", t.Name, err)
		}
	}
	return out, nil
}

// stepper is the search's Measure for target i: one open-loop phase per
// step, recorded in the run like an iteration numbered by the step.
func (c *capacitySearch) stepper(i int) capacity.Measure {
	name, n := c.plan.Targets[i].Name, 0
	return func(ctx context.Context, rate float64) (capacity.Point, error) {
		n++
		if n > 1 && Sleep(ctx, c.plan.Load.Delay.D()) {
			return capacity.Point{}, context.Canceled
		}
		fmt.Fprintf(c.s.Log(), "%s: step %d at %.4g req/s\n", name, n, rate)
		spec := load.Spec{Model: plan.Open, Duration: c.o.Step, Concurrency: c.plan.Load.Concurrency, Rate: rate}
		m, interrupted := c.s.Measure(ctx, i, name, n, spec, nil)
		if m == nil {
			if interrupted {
				return capacity.Point{}, context.Canceled
			}
			return capacity.Point{}, fmt.Errorf("step %d at %.4g req/s could not run", n, rate)
		}
		res := c.s.Run.Results[len(c.s.Run.Results)-1]
		res.TargetRPS = rate
		c.s.Run.Results[len(c.s.Run.Results)-1] = res
		if interrupted {
			return capacity.PointFrom(res), context.Canceled
		}
		return capacity.PointFrom(res), nil
	}
}

// finishCapacity closes the session and diagnoses the steps at each
// capacity found (the load the findings, SLO checks and sizing then
// describe), sizes replicas on the rate served under the SLO, and writes
// the directory with capacity.File.
func finishCapacity(s *Session, p *plan.Plan, searches []*capacity.Result, interrupted bool) (*CapacityOutcome, error) {
	s.Finish(interrupted)
	at := *s.Run
	at.Results = atCapacity(s.Run.Results, searches)
	s.Run.Findings = analyze.Diagnose(&at, s.Timeline)
	s.Run.SLO = analyze.EvaluateSLO(p, at.Results)
	co := analyze.CapacityOptionsFrom(p)
	co.UnderSLO = underSLO(searches)
	s.Run.Capacity = analyze.PlanCapacity(&at, co)
	out := &CapacityOutcome{Outcome: *s.Outcome(), Searches: searches}
	if s.Dir == "" {
		return out, nil
	}
	if err := store.WriteJSON(filepath.Join(s.Dir, capacity.File), searches); err != nil {
		return out, err
	}
	return out, s.Write()
}

// underSLO is each target's served rate at its capacity under the SLO.
func underSLO(searches []*capacity.Result) map[string]float64 {
	m := map[string]float64{}
	for _, r := range searches {
		if r.Capacity > 0 {
			m[r.Target] = r.Sustained
		}
	}
	return m
}

// atCapacity keeps each target's passing steps at the capacity its
// search found (a result's Iteration is its step's number).
func atCapacity(rs []results.Result, searches []*capacity.Result) []results.Result {
	keep := map[string]map[int]bool{}
	for _, s := range searches {
		keep[s.Target] = map[int]bool{}
		for _, st := range s.Steps {
			if st.Pass && s.Capacity > 0 && st.Offered == s.Capacity {
				keep[s.Target][st.N] = true
			}
		}
	}
	var out []results.Result
	for _, r := range rs {
		if keep[r.Target][r.Iteration] {
			out = append(out, r)
		}
	}
	return out
}
