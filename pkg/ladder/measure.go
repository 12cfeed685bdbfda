package ladder

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
)

// measure runs the schedule; true means interrupted.
func (l *ladderRun) measure(ctx context.Context) bool {
	defer l.s.Sample(ctx)()
	for _, t := range Schedule(len(l.slots), l.o.Rounds) {
		if l.turn(ctx, l.slots[t.Slot], t.Round) {
			return true
		}
	}
	return false
}

// spec is every turn's load: the same on every rung.
func (l *ladderRun) spec() load.Spec {
	pl := l.o.Plan.Load
	s := load.Spec{Model: plan.Closed, Requests: pl.Requests, Duration: pl.Duration.D(), Concurrency: pl.Concurrency}
	if !l.o.Closed {
		s.Model, s.Rate = plan.Open, l.rate
	}
	return s
}

// warmup is the unrecorded load before a turn: the turn's own load for
// TurnWarmup.
func (l *ladderRun) warmup() load.Spec {
	s := l.spec()
	s.Requests, s.Duration = 0, l.o.TurnWarmup
	return s
}

// turn runs one slot once, after its warm-up, and records it; true means
// interrupted.
func (l *ladderRun) turn(ctx context.Context, s *slot, round int) bool {
	fmt.Fprintf(l.s.Log(), "round %d/%d: %s\n", round, l.o.Rounds, s.layer)
	if l.o.TurnWarmup > 0 {
		if _, interrupted := l.s.Unrecorded(ctx, s.index, l.warmup()); interrupted {
			return true
		}
	}
	m, interrupted := l.s.Measure(ctx, s.index, s.name, round, l.spec(), nil)
	if m == nil {
		return interrupted
	}
	res := l.run.Results[len(l.run.Results)-1]
	s.unsent += m.Unsent
	if m.Unsent > 0 {
		s.behind = append(s.behind, round)
	}
	if h := m.Histogram; h != nil && h.TotalCount() > 0 {
		s.hists = append(s.hists, h)
	}
	s.windows = append(s.windows, window{res.Start, res.End, res.Requests})
	return interrupted
}
