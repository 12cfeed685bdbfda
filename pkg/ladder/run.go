package ladder

import (
	"context"
	"fmt"
	"slices"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// ladderRun is one ladder in progress, over one orchestrator session.
type ladderRun struct {
	o        *Options
	target   plan.Target // the plan's target being measured
	s        *runner.Session
	slots    []*slot  // inside out, the end-to-end slot last
	layers   []string // from the client inwards
	rate     float64
	fraction float64
	run      *results.Run // s.Run
	notes    []string
}

func newLadderRun(ctx context.Context, o *Options, t plan.Target) (*ladderRun, error) {
	slots, layers, targets, err := buildSlots(t)
	if err != nil {
		return nil, err
	}
	c := runner.Common{Out: o.Out, CommandLine: o.CommandLine, Version: o.Version, Log: o.Log,
		Monitor: o.Monitor, Reviews: o.Reviews, Gateways: o.Gateways, Lab: o.Lab, Faults: o.Faults, Executor: o.Executor, Sinks: o.Sinks, Watch: o.Watch}
	s, err := runner.NewSession(ctx, c, o.Name, o.Plan.Client, targets)
	if err != nil {
		return nil, err
	}
	l := &ladderRun{o: o, target: t, s: s, slots: slots, layers: layers, run: s.Run}
	if sharesPools(slots) {
		l.notef("The token pool was split into %d disjoint shares, one per rung: every rung met caches no other rung had warmed, so each layer's cache misses count in its own rung, whatever the order of the rungs.", len(slots))
	}
	return l, nil
}

// prepare fingerprints every slot, tells ext_authz layers apart, probes
// capacities, picks the rate and creates the run directory.
func (l *ladderRun) prepare(ctx context.Context) error {
	if err := l.fingerprint(ctx); err != nil {
		return err
	}
	l.markExtAuthz()
	if err := l.probeCapacity(ctx); err != nil {
		return err
	}
	if err := l.chooseRate(); err != nil {
		return err
	}
	l.run.Plan = l.plan()
	return l.s.CreateDir()
}

// plan records the ladder as a plan: one target per slot (so that every
// report reads the per-rung results as it reads any run's), the load
// every turn had, and the rounds as iterations.
func (l *ladderRun) plan() plan.Plan {
	o, load := l.o, l.o.Plan.Load
	p := plan.Plan{Name: o.Name, Source: "", Client: o.Plan.Client, Load: plan.Load{
		Requests: load.Requests, Duration: load.Duration, Concurrency: load.Concurrency,
		Rate: l.rate, Iterations: o.Rounds,
	}}
	for _, s := range l.slots {
		t := l.target
		t.Name, t.URL, t.Rungs = s.name, s.url, nil
		if s.layer != results.EndToEnd {
			t.Host, t.Layers = "", l.reached(s)
			for _, r := range l.target.Rungs {
				if r.Layer == s.layer {
					t.Headers = append(slices.Clone(t.Headers), r.Headers...)
				}
			}
		}
		t.Token = s.token
		p.Targets = append(p.Targets, t)
	}
	return p
}

// reached lists the layers a slot's requests go through: an ext_authz
// service alone; an inline layer and every layer inside it (an ext_authz
// layer inside it is called by one of them).
func (l *ladderRun) reached(s *slot) []string {
	if s.extAuthz {
		return []string{s.layer}
	}
	if i := slices.Index(l.layers, s.layer); i >= 0 {
		return slices.Clone(l.layers[i:])
	}
	return nil
}

func (l *ladderRun) notef(format string, a ...any) {
	l.notes = append(l.notes, fmt.Sprintf(format, a...))
}
