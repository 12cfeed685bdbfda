package ladder

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// probeCapacity runs a short closed loop against every slot, after an
// unrecorded warm-up that also opens the connections the turns reuse.
// The successful throughput is the slot's capacity from this client.
func (l *ladderRun) probeCapacity(ctx context.Context) error {
	c := l.o.Plan.Load.Concurrency
	for _, s := range l.slots {
		fmt.Fprintf(l.o.Log, "%s: capacity probe (closed loop, %d workers, %s)\n", s.layer, c, l.o.ProbeDuration)
		if l.o.ProbeWarmup > 0 {
			l.s.Unrecorded(ctx, s.index, load.Spec{Model: plan.Closed, Duration: l.o.ProbeWarmup, Concurrency: c})
		}
		m, _ := l.s.Unrecorded(ctx, s.index, load.Spec{Model: plan.Closed, Duration: l.o.ProbeDuration, Concurrency: c})
		if ctx.Err() != nil {
			return fmt.Errorf("probing capacity: %w", ctx.Err())
		}
		if m == nil {
			return fmt.Errorf("probing capacity of %s (%s): the load could not run", s.layer, s.url)
		}
		s.probe = m.Result
		s.probe.GoodputRPS = math.Round(s.probe.GoodputRPS*10) / 10
		if err := checkProbe(s); err != nil {
			return err
		}
	}
	return nil
}

// checkProbe refuses a slot whose probe mostly failed: its capacity and
// latency would be those of an error path.
func checkProbe(s *slot) error {
	r := s.probe
	if r.Requests > 0 && r.SuccessRate >= MinProbeSuccess {
		return nil
	}
	return fmt.Errorf("probing capacity of %s (%s): %d of %d requests succeeded (%s): check the rung's token and the layer",
		s.layer, s.url, r.Successes, r.Requests, outcomeCounts(r))
}

// outcomeCounts lists a result's statuses and error classes, most first.
func outcomeCounts(r results.Result) string {
	type kv struct {
		k string
		n int64
	}
	var all []kv
	for k, n := range r.Status {
		all = append(all, kv{"HTTP " + k, n})
	}
	for k, n := range r.Errors {
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].k < all[j].k })
	var parts []string
	for _, x := range all {
		parts = append(parts, fmt.Sprintf("%s: %d", x.k, x.n))
	}
	if len(parts) == 0 {
		return "no request completed"
	}
	return strings.Join(parts, ", ")
}

// chooseRate is the open loop's rate: the given one, or RateFraction of
// the weakest slot's capacity (the end-to-end slot included).
func (l *ladderRun) chooseRate() error {
	if l.o.Closed {
		return nil
	}
	if r := l.o.Plan.Load.Rate; r > 0 {
		l.rate = r
		weakest := l.weakest()
		if l.rate >= weakest.probe.GoodputRPS {
			l.notef("The rate (%.0f req/s) is not below the weakest rung's capacity (%s, %.0f req/s): that rung queues, and its latency includes waiting.",
				l.rate, weakest.layer, weakest.probe.GoodputRPS)
		}
		return nil
	}
	weakest := l.weakest()
	// A tenth of a request per second is finer than any capacity probe.
	l.rate = math.Round(l.o.RateFraction*weakest.probe.GoodputRPS*10) / 10
	l.fraction = l.o.RateFraction
	if l.rate <= 0 {
		return fmt.Errorf("choosing the rate: %s has no measured capacity", weakest.layer)
	}
	return nil
}

func (l *ladderRun) weakest() *slot {
	return slices.MinFunc(l.slots, func(a, b *slot) int {
		switch {
		case a.probe.GoodputRPS < b.probe.GoodputRPS:
			return -1
		case a.probe.GoodputRPS > b.probe.GoodputRPS:
			return 1
		}
		return 0
	})
}
