package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// clearTimeout bounds the clear that ends a held fault, which runs after
// the caller's context has ended (Ctrl-C).
const clearTimeout = 10 * time.Second

// SetFault validates f, replaces the fault on its link with it and appends
// the event to the lab's fault log, stamped when the fault proxy has taken
// it. A fault with For set is not cleared by SetFault: see HoldFault.
func (l *Lab) SetFault(ctx context.Context, f Fault) (results.FaultEvent, error) {
	if l.err != nil {
		return results.FaultEvent{}, l.err
	}
	if err := f.Validate(); err != nil {
		return results.FaultEvent{}, err
	}
	if err := l.platform.SetFault(ctx, l.dir, f); err != nil {
		return results.FaultEvent{}, fmt.Errorf("setting fault on link %s: %w", f.Link, err)
	}
	ev := f.Event(time.Now())
	return ev, AppendFault(l.dir, ev)
}

// ClearFault removes every fault from link and logs the clear.
func (l *Lab) ClearFault(ctx context.Context, link string) (results.FaultEvent, error) {
	if l.err != nil {
		return results.FaultEvent{}, l.err
	}
	link, err := ParseLink(link)
	if err != nil {
		return results.FaultEvent{}, err
	}
	if err := l.platform.ClearFault(ctx, l.dir, link); err != nil {
		return results.FaultEvent{}, fmt.Errorf("clearing faults of link %s: %w", link, err)
	}
	ev := ClearEvent(link, time.Now())
	return ev, AppendFault(l.dir, ev)
}

// HoldFault sets f and, when f.For is set, holds it: it waits For (or
// until ctx ends, e.g. Ctrl-C), then clears the link and logs the clear,
// so a fault never outlives the command that set it. It calls set after
// the fault is set and returns the clear event (zero without For).
func (l *Lab) HoldFault(ctx context.Context, f Fault, set func(results.FaultEvent)) (results.FaultEvent, error) {
	ev, err := l.SetFault(ctx, f)
	if err != nil {
		return results.FaultEvent{}, err
	}
	if set != nil {
		set(ev)
	}
	if f.For == 0 {
		return results.FaultEvent{}, nil
	}
	t := time.NewTimer(time.Until(ev.At.Add(f.For)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), clearTimeout)
	defer cancel()
	return l.ClearFault(cctx, f.Link)
}

// Faults lists the faults in force on the running lab, each with when it
// was set and, for a --for fault, when it ends, from the fault log.
func (l *Lab) Faults(ctx context.Context) ([]ActiveFault, error) {
	if _, err := l.State(ctx); err != nil {
		return nil, err
	}
	live, err := l.platform.Faults(ctx, l.dir)
	if err != nil {
		return nil, fmt.Errorf("listing faults: %w", err)
	}
	events, err := ReadFaults(l.dir)
	if err != nil {
		return nil, err
	}
	out := make([]ActiveFault, 0, len(live))
	for _, f := range live {
		out = append(out, activeFault(f, events))
	}
	return out, nil
}

// activeFault dates a live fault by the last set event of its link.
func activeFault(f Fault, events []results.FaultEvent) ActiveFault {
	a := ActiveFault{Fault: f}
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		if ev.Link != f.Link {
			continue
		}
		if ev.Action == results.FaultSet {
			at := ev.At
			a.Since = &at
			if ev.ForMs > 0 {
				a.Fault.For = FaultOf(ev).For
				until := ev.At.Add(a.Fault.For)
				a.Until = &until
			}
		}
		break
	}
	return a
}
