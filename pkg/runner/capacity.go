package runner

import (
	"context"
	"fmt"
	"io"
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
// searched in turn (capacity.Search), each step an open-loop load.
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
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Out == "" {
		o.Out = "runs"
	}
	if o.Step <= 0 {
		o.Step = capacity.DefaultStep
	}
	p := o.Plan
	p.Load.Duration, p.Load.Requests, p.Load.Iterations = plan.Duration(o.Step), 0, 1
	if p.Load.Rate <= 0 {
		// The plan records an open loop; each step's own rate is in its Result.
		p.Load.Rate = o.Search.Min
		if p.Load.Rate <= 0 {
			p.Load.Rate = capacity.DefaultMin
		}
	}
	if o.Search.SLO == (plan.SLO{}) && p.SLO != nil {
		o.Search.SLO = *p.SLO
	}
	p.Complete()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := o.Search.Complete(); err != nil {
		return nil, err
	}
	e, err := prepare(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	e.run.Kind = results.KindCapacity
	searches, err := e.search(ctx, o)
	interrupted := ctx.Err() != nil
	if err != nil && !interrupted {
		fmt.Fprintf(o.Log, "error: %v\n", err)
	}
	out, werr := e.finishCapacity(searches, interrupted)
	switch {
	case werr != nil:
		return out, werr
	case interrupted:
		return out, ErrInterrupted
	}
	return out, err
}

// prepare readies an execution: targets, client and run directory.
func prepare(ctx context.Context, o Options) (*execution, error) {
	targets, err := prepareTargets(ctx, o.Plan)
	if err != nil {
		return nil, err
	}
	attacker, err := load.NewAttacker(o.Plan.Client)
	if err != nil {
		return nil, fmt.Errorf("preparing http client: %w", err)
	}
	start := time.Now()
	dir, err := store.NewRunDir(o.Out, o.Plan.Name, start)
	if err != nil {
		return nil, err
	}
	e := &execution{o: o, plan: o.Plan, attacker: attacker, targets: targets, dir: dir}
	e.run, e.tl = newRun(o, start), &results.Timeline{}
	return e, nil
}

// search probes the targets, starts sampling, warms up, then searches
// each target.
func (e *execution) search(ctx context.Context, o CapacityOptions) ([]*capacity.Result, error) {
	for _, t := range e.targets {
		e.run.Environment.Targets = append(e.run.Environment.Targets, probe(ctx, e.attacker, t))
	}
	if e.o.Monitor != nil {
		if err := e.o.Monitor.Start(ctx); err != nil {
			fmt.Fprintf(e.o.Log, "warning: resource sampling disabled: %v\n", err)
			e.o.Monitor = nil
		} else {
			defer e.o.Monitor.Stop()
		}
	}
	if e.warmup(ctx) {
		return nil, ctx.Err()
	}
	var out []*capacity.Result
	for _, t := range e.targets {
		fmt.Fprintf(e.o.Log, "%s: searching capacity under %s\n", t.plan.Name, capacity.SLOText(o.Search.SLO))
		r, err := capacity.Search(ctx, e.stepper(t, o.Step), o.Search)
		if r != nil {
			r.Target = t.plan.Name
			out = append(out, r)
		}
		if err != nil {
			return out, fmt.Errorf("searching %s: %w", t.plan.Name, err)
		}
	}
	return out, nil
}

// stepper is the search's Measure for one target: one open-loop load per
// step, recorded in the run like an iteration.
func (e *execution) stepper(t target, step time.Duration) capacity.Measure {
	n := 0
	return func(ctx context.Context, rate float64) (capacity.Point, error) {
		n++
		if n > 1 && sleep(ctx, e.plan.Load.Delay.D()) {
			return capacity.Point{}, ctx.Err()
		}
		fmt.Fprintf(e.o.Log, "%s: step %d at %.4g req/s\n", t.plan.Name, n, rate)
		res, m := e.attackStep(ctx, t, n, load.Spec{Model: plan.Open, Duration: step,
			Concurrency: e.plan.Load.Concurrency, Rate: rate})
		if err := m.Err(); err != nil {
			return capacity.Point{}, err
		}
		if m.Partial() || ctx.Err() != nil {
			return capacity.PointFrom(res), context.Canceled
		}
		return capacity.PointFrom(res), nil
	}
}

// attackStep runs one step and records it as the target's result number n.
func (e *execution) attackStep(ctx context.Context, t target, n int, s load.Spec) (results.Result, *load.Metrics) {
	hlogName := store.HistogramFileName(t.plan.Name, n)
	hlog, err := newAtomicFile(filepath.Join(e.dir, hlogName))
	if err != nil {
		fmt.Fprintf(e.o.Log, "warning: %v\n", err)
	}
	var opts []load.AttackOption
	if hlog != nil {
		opts = append(opts, load.WithHistogramLog(hlog))
	}
	m := e.attacker.Attack(ctx, t.request, s, opts...)
	res := m.Result()
	res.Target, res.Iteration = t.plan.Name, n
	if hlog != nil {
		if err := hlog.Commit(); err != nil {
			fmt.Fprintf(e.o.Log, "warning: %v\n", err)
		} else {
			res.HistogramFile = hlogName
		}
	}
	if e.o.Monitor != nil {
		res.Components = e.o.Monitor.Usage(res.Start, res.End, res.Requests)
	}
	e.run.Results = append(e.run.Results, res)
	e.tl.Series = append(e.tl.Series, results.Series{Target: res.Target, Iteration: n, Points: m.Series()})
	return res, m
}

// finishCapacity diagnoses the steps at each capacity found (the load the
// findings and sizing then describe), and writes the directory.
func (e *execution) finishCapacity(searches []*capacity.Result, interrupted bool) (*CapacityOutcome, error) {
	run := e.run
	run.End = time.Now().UTC()
	run.Partial = interrupted
	at := *run
	at.Results = atCapacity(run.Results, searches)
	run.Findings = analyze.Diagnose(&at, e.tl)
	run.SLO = analyze.EvaluateSLO(e.plan, at.Results)
	run.Capacity = analyze.PlanCapacity(&at, analyze.CapacityOptionsFrom(e.plan))
	if e.o.Monitor != nil {
		for _, w := range e.o.Monitor.Warnings() {
			fmt.Fprintln(e.o.Log, "warning:", w)
		}
	}
	out := &CapacityOutcome{Outcome: Outcome{Dir: e.dir, Run: run, Timeline: e.tl}, Searches: searches}
	if err := store.WriteJSON(filepath.Join(e.dir, capacity.File), searches); err != nil {
		return out, err
	}
	return out, WriteRun(e.dir, e.o.Out, run, e.tl, e.o.Log)
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
