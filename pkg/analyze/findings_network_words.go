package analyze

import (
	"fmt"

	"github.com/authbench/authbench/pkg/results"
)

// networkRoundTrip adds the round-trip finding for a target to out and,
// when the round trip is the main part, a caveat to the target's
// saturation finding: a closed loop over a long path obeys Little's law
// too, but its latency is the path, not queueing at the stack.
func networkRoundTrip(run *results.Run, target string, rs []results.Result, out []results.Finding) []results.Finding {
	fs := networkFindings(run, target, rs)
	if len(fs) == 0 {
		return out
	}
	if v := fs[0].Values; v["share"] >= RoundTripMain {
		for i := range out {
			if out[i].Target == target && out[i].Kind == KindSaturation {
				out[i].Evidence += fmt.Sprintf(" Caveat (%s): ~%s ms of the P50 of %s ms is network round trip, so "+
					"the workers mostly waited on the path; the throughput is the path's bound at this concurrency, "+
					"not the stack's capacity.", KindNetworkRoundTrip, num(v["round_trip_ms"]), num(v["p50_ms"]))
			}
		}
	}
	return append(out, fs...)
}

// networkFindings reports a target whose P50 is mostly (or largely) the
// network round trip between authbench and it. Capacity searches and
// ladders are left out: their steps and rungs are compared with each
// other, over the same path.
func networkFindings(run *results.Run, target string, rs []results.Result) []results.Finding {
	if run.Kind == results.KindCapacity || run.Ladder != nil {
		return nil
	}
	s, ok := SplitPath(run, rs)
	if !ok || !s.Reported() {
		return nil
	}
	sev, advice := SeverityInfo, "Part of every request's time is the path from this client, not the stack: compare "+
		"stacks from the same client position, and read the stack's own time for its cost."
	if s.Share >= RoundTripMain {
		sev = SeverityWarning
		advice = fmt.Sprintf("These figures measure the path from this client more than the stack (its own time ~%s ms "+
			"at the median). Compare stacks only from the same client position. A closed loop can never exceed "+
			"workers / round trip: to load the stack harder from here, add workers or run an open loop at a rate; "+
			"to measure the stack itself, run the client beside it (run --pods on the cluster).", num(s.ServiceMs))
	}
	return []results.Finding{{
		Kind: KindNetworkRoundTrip, Severity: sev, Target: target,
		Evidence: pathEvidence(s), Advice: advice, Values: pathValues(s),
	}}
}

// pathEvidence words the split: P50, the round trip and what measured
// it, the stack's own time, and for a closed loop the bound the path sets
// on throughput against the throughput achieved.
func pathEvidence(s PathSplit) string {
	part := "a large part"
	if s.Share >= RoundTripMain {
		part = "the main part"
	}
	ev := fmt.Sprintf("P50 %s ms, of which ~%s ms (%.0f%%) is network round trip (%s), %s; the stack's own time "+
		"is ~%s ms.", num(s.P50Ms), num(s.RoundTripMs), s.Share*100, measureWords(s), part, num(s.ServiceMs))
	if s.Workers == 0 || s.AchievedRPS <= 0 {
		return ev
	}
	ev += fmt.Sprintf(" At %d workers a closed loop over this path runs at about %d / (%s ms + %s ms) = %s req/s; "+
		"it achieved %s req/s", s.Workers, s.Workers, num(s.RoundTripMs), num(s.ServiceMs), num(s.BoundRPS), num(s.AchievedRPS))
	switch {
	case s.Share >= RoundTripMain && s.AchievedRPS >= s.BoundRPS*(1-SaturationTolerance):
		ev += ": the run is bound by the network, not the stack."
	case s.AchievedRPS < s.BoundRPS*(1-SaturationTolerance):
		ev += fmt.Sprintf(" (%.0f%% of that): requests slower than the median (mean %s ms) held the workers longer.",
			100*s.AchievedRPS/s.BoundRPS, num(s.MeanMs))
	default:
		ev += "."
	}
	return ev
}

// measureWords says which measure gave the round trip, and why it holds.
func measureWords(s PathSplit) string {
	var w string
	switch s.Measure {
	case MeasureConnect:
		w = fmt.Sprintf("fastest TCP connect %s ms, one round trip", num(s.MeasureMs))
	case MeasureTLS:
		w = fmt.Sprintf("fastest TLS handshake %s ms, one round trip in TLS 1.3 plus the key exchange; ", num(s.MeasureMs))
		if s.ConnectMinMs > 0 {
			w += fmt.Sprintf("the TCP connect took %s ms, so something near accepted it and the path delays data, "+
				"as a local proxy does", num(s.ConnectMinMs))
		} else {
			w += "no TCP connect was timed"
		}
	case MeasureLabLink:
		w = fmt.Sprintf("the delay set on the lab's client link, %s ms; no handshake was timed", num(s.MeasureMs))
	}
	if s.Capped {
		w += fmt.Sprintf("; at most the fastest request, %s ms", num(s.FastestMs))
	}
	return w
}

func pathValues(s PathSplit) results.Values {
	v := results.Values{"p50_ms": s.P50Ms, "round_trip_ms": s.RoundTripMs, "service_ms": s.ServiceMs,
		"share": s.Share, "measure_ms": s.MeasureMs, "threshold": RoundTripShare}
	for k, x := range map[string]float64{"connect_min_ms": s.ConnectMinMs, "tls_min_ms": s.TLSMinMs,
		"fastest_ms": s.FastestMs} {
		if x > 0 {
			v[k] = x
		}
	}
	if s.Workers > 0 {
		v["concurrency"], v["bound_rps"], v["achieved_rps"] = float64(s.Workers), s.BoundRPS, s.AchievedRPS
	}
	return v
}
