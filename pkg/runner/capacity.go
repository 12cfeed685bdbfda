package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// CapacityOptions configure a capacity run: each target of the plan is
// searched in turn (capacity.Search), each step an open-loop load.
type CapacityOptions struct {
	// Options are run's: the plan, files, sampling and executor.
	Options
	// Search configures every target's search. Its SLO, when zero, is the
	// plan's.
	Search capacity.Options
	// Step is how long each step's load lasts. Default capacity.DefaultStep.
	Step time.Duration
	// Scale, when set, searches every target once per replica count of
	// one component (`capacity --replicas`).
	Scale *ScaleSteps
}

// ScaleSteps are the replica counts a capacity run searches at, and how
// the caller (the CLI, which knows the lab) sets each: the runner imports
// no lab.
type ScaleSteps struct {
	Component string
	Replicas  []int
	// Limit is each replica's limit, for the record ("" for none).
	Limit string
	// Apply runs the component as n replicas and returns once they
	// serve, with the replicas it started that the run does not sample
	// yet (the monitor samples them from then on).
	Apply func(ctx context.Context, n int) ([]observe.LocalComponent, error)
}

// CapacityOutcome is what a capacity run produced: the run directory,
// whose Results are the steps, and one search result per target.
type CapacityOutcome struct {
	Outcome
	Searches []*capacity.Result
}

// Capacity searches the capacity of the plan's targets under its SLO, in
// one session like any run, and writes a run directory marked as a
// capacity run: one Result per step (Iteration is the step's number,
// TargetRPS its offered rate), the searches in capacity.File, and the
// findings, SLO checks and sizing of the passing steps at the capacity
// found. Interrupted, it keeps what it measured and returns
// ErrInterrupted.
func Capacity(ctx context.Context, o CapacityOptions) (*CapacityOutcome, error) {
	p, err := capacityPlan(&o)
	if err != nil {
		return nil, err
	}
	s, err := open(ctx, o.Options, p)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	s.Run.Kind = results.KindCapacity
	searches, serr := search(ctx, s, p, o)
	interrupted := ctx.Err() != nil
	if serr != nil && !interrupted {
		fmt.Fprintf(s.Log(), "error: %v\n", serr)
	}
	out, werr := finishCapacity(ctx, s, p, searches, interrupted)
	switch {
	case werr != nil:
		return out, werr
	case interrupted:
		return out, ErrInterrupted
	}
	return out, serr
}

// capacityPlan makes the plan an open loop of Step per step, takes its
// SLO for the search, and validates both before any load.
func capacityPlan(o *CapacityOptions) (*plan.Plan, error) {
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
	if err := p.Ready(); err != nil {
		return nil, err
	}
	return p, o.Search.Complete()
}

// search probes the targets, samples, warms up, then searches each
// target in turn.
func search(ctx context.Context, s *Session, p *plan.Plan, o CapacityOptions) ([]*capacity.Result, error) {
	for i := range p.Targets {
		s.Probe(ctx, i)
	}
	defer s.Sample(ctx)()
	e := &execution{s: s, plan: p}
	if o.Scale == nil {
		if e.warmup(ctx) {
			return nil, ctx.Err()
		}
		return searchTargets(ctx, s, p, o, nil)
	}
	var out []*capacity.Result
	for _, n := range o.Scale.Replicas {
		fmt.Fprintf(s.Log(), "scaling %s to %d replicas\n", o.Scale.Component, n)
		added, err := o.Scale.Apply(ctx, n)
		if err != nil {
			return out, fmt.Errorf("scaling %s to %d replicas: %w", o.Scale.Component, n, err)
		}
		if err := sampleMore(o.Monitor, added); err != nil {
			fmt.Fprintf(s.Log(), "warning: %v\n", err)
		}
		// The new replicas' caches are cold: warm up again before
		// measuring.
		if e.warmup(ctx) {
			return out, ctx.Err()
		}
		sc := &results.CapacityScale{Component: o.Scale.Component, Replicas: n, Limit: o.Scale.Limit}
		rs, err := searchTargets(ctx, s, p, o, sc)
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// searchTargets searches each target in turn; at a replica count (sc),
// each search's target is named TARGET@N, so that its steps' results stay
// apart from the other counts'.
func searchTargets(ctx context.Context, s *Session, p *plan.Plan, o CapacityOptions, sc *results.CapacityScale) ([]*capacity.Result, error) {
	var out []*capacity.Result
	for i, t := range p.Targets {
		name := t.Name
		if sc != nil {
			name = ScaledTarget(t.Name, sc.Replicas)
		}
		fmt.Fprintf(s.Log(), "%s: searching capacity under %s\n", name, capacity.SLOText(o.Search.SLO))
		r, err := capacity.Search(ctx, stepper(s, p, i, name, o.Step), o.Search)
		if r != nil {
			r.Target, r.Scale = name, sc
			out = append(out, r)
		}
		if err != nil {
			return out, fmt.Errorf("searching %s: %w", name, err)
		}
	}
	return out, nil
}

// ScaledTarget names a target searched at n replicas: TARGET@N.
func ScaledTarget(target string, n int) string { return fmt.Sprintf("%s@%d", target, n) }

// stepper is the search's Measure for target i: one open-loop phase per
// step, recorded by the session like an iteration (numbered by step).
func stepper(s *Session, p *plan.Plan, i int, name string, step time.Duration) capacity.Measure {
	n := 0
	return func(ctx context.Context, rate float64) (capacity.Point, error) {
		n++
		if n > 1 && Sleep(ctx, p.Load.Delay.D()) {
			return capacity.Point{}, ctx.Err()
		}
		fmt.Fprintf(s.Log(), "%s: step %d at %.4g req/s\n", name, n, rate)
		spec := load.Spec{Model: plan.Open, Duration: step, Concurrency: p.Load.Concurrency, Rate: rate}
		m, interrupted := s.Measure(ctx, i, name, n, spec, nil)
		switch {
		case interrupted:
			return capacity.Point{}, context.Canceled
		case m == nil:
			return capacity.Point{}, fmt.Errorf("step %d at %g req/s could not run", n, rate)
		}
		return capacity.PointFrom(s.Run.Results[len(s.Run.Results)-1]), nil
	}
}

// finishCapacity closes the record, diagnoses the passing steps at each
// capacity found (the load the findings and sizing then describe), and
// records the directory with capacity.File.
func finishCapacity(ctx context.Context, s *Session, p *plan.Plan, searches []*capacity.Result, interrupted bool) (*CapacityOutcome, error) {
	s.Finish(interrupted)
	at := *s.Run
	at.Results = atCapacity(s.Run.Results, searches)
	s.Run.Findings = analyze.Diagnose(&at, s.Timeline)
	s.Run.SLO = analyze.EvaluateSLO(p, at.Results)
	co := analyze.CapacityOptionsFrom(p)
	co.UnderSLO = underSLO(searches)
	s.Run.Capacity = analyze.PlanCapacity(&at, co)
	s.Run.ReplicaCurve = replicaCurve(searches, s.Run.Results)
	out := &CapacityOutcome{Outcome: *s.Outcome(), Searches: searches}
	// The searches are part of the result: written right after run.json,
	// before any sink reads them.
	s.c.Sinks = append([]Sink{searchFile(searches)}, s.c.Sinks...)
	return out, s.Write(ctx)
}

// searchFile writes capacity.File: a capacity run's searches.
type searchFile []*capacity.Result

// File is capacity.File.
func (searchFile) File() string { return capacity.File }

// Write writes the searches.
func (f searchFile) Write(_ context.Context, o *Outcome) error {
	return store.WriteJSON(filepath.Join(o.Dir, capacity.File), []*capacity.Result(f))
}

// underSLO is each target's served rate at its capacity under the SLO,
// what one replica sustains: sizing counts on it.
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

// replicaCurve is the searches' capacity per replica count (nil when the
// run scaled nothing).
func replicaCurve(searches []*capacity.Result, rs []results.Result) *results.ReplicaCurve {
	var c *results.ReplicaCurve
	for _, r := range searches {
		if r.Scale == nil {
			continue
		}
		if c == nil {
			c = &results.ReplicaCurve{Component: r.Scale.Component, Limit: r.Scale.Limit}
		}
		c.Points = append(c.Points, analyze.ReplicaPoint(r, rs))
	}
	return c
}

// sampleMore adds components to the run's monitor (none without one).
func sampleMore(m *observe.Monitor, comps []observe.LocalComponent) error {
	if m == nil || len(comps) == 0 {
		return nil
	}
	ls, err := observe.NewLocal(comps, observe.LocalOptions{})
	if err != nil {
		return fmt.Errorf("sampling the new replicas: %w", err)
	}
	m.Add(ls)
	return nil
}
