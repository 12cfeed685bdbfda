package analyze

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// FaultSpan is one fault as it stood on a link of the lab: set at From,
// gone at To (cleared, expired, or replaced by the next fault set on the
// same link). Open means it was still in force when the run ended; To is
// then the run's end.
type FaultSpan struct {
	// Fault is the event that set it.
	Fault    results.FaultEvent
	From, To time.Time
	Open     bool
	// Ended says how it ended: FaultCleared, FaultExpired, FaultReplaced,
	// or FaultInForce (Open).
	Ended string
}

// How a fault span ended (FaultSpan.Ended).
const (
	FaultCleared  = "cleared"
	FaultExpired  = "expired"
	FaultReplaced = "replaced"
	FaultInForce  = "in force"
)

// ClearSlack is how long after a --for fault's expiry the clear that ends
// it may be logged and still be taken as its end: the fault proxy drops
// the fault when the clear is done, not at the expiry itself. A later
// event on the link belongs to something else; the fault then ends at its
// expiry.
const ClearSlack = 10 * time.Second

// FaultSpans pairs a run's fault events into the spans each fault was in
// force, in the order they were set. A fault set before the run began (in
// force at its start) keeps its own From.
func FaultSpans(run *results.Run) []FaultSpan {
	if run == nil {
		return nil
	}
	evs := append([]results.FaultEvent(nil), run.Faults...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
	var out []FaultSpan
	for i, ev := range evs {
		if ev.Action != results.FaultSet {
			continue
		}
		sp := spanOf(ev, evs[i+1:])
		if !run.End.IsZero() && (sp.Open || sp.To.After(run.End)) {
			sp.To, sp.Open, sp.Ended = run.End, true, FaultInForce
		}
		if sp.To.After(sp.From) {
			out = append(out, sp)
		}
	}
	return out
}

// spanOf ends the fault set by ev at the next event on its link (within
// ClearSlack of its expiry), else at its expiry, else never.
func spanOf(ev results.FaultEvent, later []results.FaultEvent) FaultSpan {
	sp := FaultSpan{Fault: ev, From: ev.At, Open: true, Ended: FaultInForce}
	var expiry time.Time
	if ev.ForMs > 0 {
		expiry = ev.At.Add(msDuration(ev.ForMs))
		sp.To, sp.Open, sp.Ended = expiry, false, FaultExpired
	}
	for _, next := range later {
		if next.Link != ev.Link {
			continue
		}
		if ev.ForMs > 0 && next.At.After(expiry.Add(ClearSlack)) {
			break
		}
		sp.To, sp.Open, sp.Ended = next.At, false, FaultCleared
		switch {
		case next.Action == results.FaultSet:
			sp.Ended = FaultReplaced
		case ev.ForMs > 0 && !next.At.Before(expiry):
			sp.Ended = FaultExpired
		}
		break
	}
	return sp
}

// Seconds is how long the span lasted (within the run when Open).
func (sp FaultSpan) Seconds() float64 { return sp.To.Sub(sp.From).Seconds() }

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// FaultLabel words a fault in a few words, as a timeline labels it:
// "apiserver +200 ms", "keycloak down 5 s", "client 100 KB/s".
func FaultLabel(ev results.FaultEvent) string {
	parts := []string{ev.Link}
	if ev.Action == results.FaultClear {
		return ev.Link + " cleared"
	}
	if ev.Down {
		parts = append(parts, "down")
	}
	if ev.DelayMs > 0 {
		d := "+" + num(ev.DelayMs) + " ms"
		if ev.JitterMs > 0 {
			d += " ±" + num(ev.JitterMs) + " ms"
		}
		parts = append(parts, d)
	}
	if ev.BandwidthKBps > 0 {
		parts = append(parts, fmt.Sprintf("%d KB/s", ev.BandwidthKBps))
	}
	if ev.ForMs > 0 {
		if ev.Down && ev.DelayMs == 0 && ev.BandwidthKBps == 0 {
			parts = append(parts, durationWords(ev.ForMs))
		} else {
			parts = append(parts, "for "+durationWords(ev.ForMs))
		}
	}
	return strings.Join(parts, " ")
}

// durationWords is a fault's duration in ms, in seconds from one second.
func durationWords(ms float64) string {
	if ms >= 1000 {
		return num(ms/1000) + " s"
	}
	return num(ms) + " ms"
}

// second is one second of a target's per-second timeline at its wall-clock
// time, the iterations' seconds in time order.
type second struct {
	at     time.Time
	points results.Point
}

// end is when the second closes.
func (s second) end() time.Time { return s.at.Add(time.Second) }

// within reports whether the second lies wholly inside [from, to).
func (s second) within(from, to time.Time) bool { return !s.at.Before(from) && !s.end().After(to) }

// overlaps reports whether any part of the second lies in [from, to).
func (s second) overlaps(from, to time.Time) bool { return s.at.Before(to) && s.end().After(from) }

// targetSeconds lays a target's timeline on the wall clock: each
// iteration's points from its result's start.
func targetSeconds(run *results.Run, tl *results.Timeline, target string) []second {
	if tl == nil {
		return nil
	}
	starts := map[int]time.Time{}
	for _, r := range run.Results {
		if r.Target == target && !r.Start.IsZero() {
			starts[r.Iteration] = r.Start
		}
	}
	var out []second
	for _, s := range tl.Series {
		start, ok := starts[s.Iteration]
		if s.Target != target || !ok {
			continue
		}
		for _, p := range s.Points {
			out = append(out, second{at: start.Add(time.Duration(p.T * float64(time.Second))), points: p})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// clean reports whether a second overlaps none of the spans.
func clean(s second, spans []FaultSpan) bool {
	for _, sp := range spans {
		if s.overlaps(sp.From, sp.To) {
			return false
		}
	}
	return true
}

// p50Median is the median of the per-second P50s of seconds that
// completed requests; NaN when none did.
func p50Median(ss []second) float64 {
	var v []float64
	for _, s := range ss {
		if s.points.Requests > 0 {
			v = append(v, s.points.P50)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// RunOffset is t in seconds from the run's start (negative before it).
func RunOffset(run *results.Run, t time.Time) float64 { return t.Sub(run.Start).Seconds() }

// offsetWords says when t fell in the run: "12 s into the run", or
// before it began.
func offsetWords(run *results.Run, t time.Time) string {
	d := RunOffset(run, t)
	if d < 0 {
		return num(-d) + " s before the run began"
	}
	return num(d) + " s into the run"
}

// spanWords says when a span was in force: "from 12 s into the run for
// 5 s", "from ... until the run ended (never cleared)".
func spanWords(run *results.Run, sp FaultSpan) string {
	if sp.Open {
		return "from " + offsetWords(run, sp.From) + " until the run ended (never cleared within it)"
	}
	return "from " + offsetWords(run, sp.From) + " for " + num(sp.Seconds()) + " s"
}

// labComponent names the lab component playing role (the lab's record
// may add "(program plays ...)" to a role), else fallback.
func labComponent(run *results.Run, role, fallback string) string {
	if run.Lab != nil {
		for _, c := range run.Lab.Components {
			if c.Role == role || strings.HasPrefix(c.Role, role+" (") {
				return c.Name
			}
		}
	}
	return fallback
}

// FaultFindings explains the faults set on the lab's links during a run,
// from its timeline: an API server slowed (what each request paid, per
// proxy, against the latency observed), a dependency down (which layers
// failed and how, how many requests, the recovery time), Keycloak down
// (what the OIDC clients and the ext_authz service did).
func FaultFindings(run *results.Run, tl *results.Timeline) []results.Finding {
	spans := FaultSpans(run)
	if len(spans) == 0 {
		return nil
	}
	out := slowAPIServerFindings(run, tl, spans)
	return append(out, downFindings(run, tl, spans)...)
}
