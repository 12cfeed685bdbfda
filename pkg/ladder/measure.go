package ladder

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// measure runs the schedule; true means interrupted.
func (l *ladderRun) measure(ctx context.Context) bool {
	if l.o.Monitor != nil {
		if err := l.o.Monitor.Start(ctx); err != nil {
			fmt.Fprintf(l.o.Log, "warning: resource sampling disabled: %v\n", err)
			l.o.Monitor = nil
		} else {
			defer l.o.Monitor.Stop()
		}
	}
	for _, t := range Schedule(len(l.slots), l.o.Rounds) {
		if l.turn(ctx, l.slots[t.Slot], t.Round) {
			return true
		}
	}
	return false
}

// spec is every turn's load: the same on every rung.
func (l *ladderRun) spec() load.Spec {
	s := load.Spec{Model: plan.Closed, Requests: l.o.SlotRequests, Duration: l.o.SlotDuration, Concurrency: l.o.Concurrency}
	if !l.o.Closed {
		s.Model, s.Rate = plan.Open, l.rate
	}
	return s
}

// turn runs one slot once and records it; true means interrupted.
func (l *ladderRun) turn(ctx context.Context, s *slot, round int) bool {
	fmt.Fprintf(l.o.Log, "round %d/%d: %s\n", round, l.o.Rounds, s.layer)
	var hlog bytes.Buffer
	var opts []load.AttackOption
	if l.dir != "" {
		opts = append(opts, load.WithHistogramLog(&hlog))
	}
	m := l.attacker.Attack(ctx, s.req, l.spec(), opts...)
	res := m.Result()
	res.Target, res.Iteration = s.name, round
	if l.dir != "" && m.LogErr() == nil {
		name := store.HistogramFileName(s.name, round)
		if err := store.WriteFile(filepath.Join(l.dir, name), hlog.Bytes()); err != nil {
			fmt.Fprintf(l.o.Log, "warning: %v\n", err)
		} else {
			res.HistogramFile = name
		}
	}
	if l.o.Monitor != nil {
		res.Components = l.o.Monitor.Usage(res.Start, res.End, res.Requests)
	}
	s.unsent += m.Unsent()
	if m.Unsent() > 0 {
		s.behind = append(s.behind, round)
	}
	l.run.Results = append(l.run.Results, res)
	l.tl.Series = append(l.tl.Series, results.Series{Target: s.name, Iteration: round, Points: m.Series()})
	if h := m.Histogram(); h != nil && h.TotalCount() > 0 {
		s.hists = append(s.hists, h)
	}
	s.windows = append(s.windows, window{res.Start, res.End, res.Requests})
	return m.Partial() || ctx.Err() != nil
}
