package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
)

// execution is `authbench run`'s schedule over a session.
type execution struct {
	s        *Session
	plan     *plan.Plan
	progress ProgressView
}

// execute runs probes, warm-up and iterations. It reports whether the run
// was interrupted; whatever was measured is kept in the session either way.
func (e *execution) execute(ctx context.Context) (interrupted bool) {
	for i := range e.plan.Targets {
		e.s.Probe(ctx, i)
	}
	defer e.s.Sample(ctx)()
	if e.warmup(ctx) {
		return true
	}
	// Iterations run outermost so that drift (a noisy neighbour, a cache
	// warming) hits every target alike instead of one target's block.
	for it := 1; it <= e.plan.Load.Iterations; it++ {
		if it > 1 && Sleep(ctx, e.plan.Load.Delay.D()) {
			return true
		}
		for i := range e.plan.Targets {
			if e.iteration(ctx, i, it) {
				return true
			}
		}
	}
	return false
}

// iteration runs one target once and records it; true means interrupted.
func (e *execution) iteration(ctx context.Context, i, it int) bool {
	name := e.plan.Targets[i].Name
	fmt.Fprintf(e.s.Log(), "%s: iteration %d/%d\n", name, it, e.plan.Load.Iterations)
	progress := &load.Progress{}
	stop := e.showProgress(name, it, progress)
	_, interrupted := e.s.Measure(ctx, i, name, it, load.SpecFrom(e.plan.Load), progress)
	stop()
	return interrupted
}

// warmup sends the unrecorded warm-up load to every target.
func (e *execution) warmup(ctx context.Context) bool {
	l := e.plan.Load
	if l.WarmupRequests == 0 && l.WarmupDuration == 0 {
		return false
	}
	s := load.Spec{Model: plan.Closed, Requests: l.WarmupRequests, Duration: l.WarmupDuration.D(), Concurrency: l.Concurrency}
	if s.Requests > 0 && int64(s.Concurrency) > s.Requests {
		s.Concurrency = int(s.Requests)
	}
	for i, t := range e.plan.Targets {
		fmt.Fprintf(e.s.Log(), "%s: warm-up (%s), not recorded\n", t.Name, warmupText(l))
		if _, interrupted := e.s.Unrecorded(ctx, i, s); interrupted {
			return true
		}
	}
	return false
}

func warmupText(l plan.Load) string {
	if l.WarmupDuration > 0 {
		return l.WarmupDuration.String()
	}
	return fmt.Sprintf("%d requests", l.WarmupRequests)
}

// Sleep waits d or until ctx is done; true means interrupted.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() != nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true
	case <-t.C:
		return false
	}
}
