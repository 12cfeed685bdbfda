package analyze

import (
	"fmt"
	"math"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// KindFaultSlowAPIServer is the finding that a delay on the lab's API
// server link reached the requests: what each request was expected to
// pay (its reviews × the delay, per proxy) against the latency observed.
const KindFaultSlowAPIServer = "fault-apiserver-slow"

// proxyReviews is one caller's reviews per request on a target's path.
type proxyReviews struct {
	name    string
	tr, sar float64 // per request
}

// pathReviews splits a target's reviews per request by the caller that
// made them (audit counts), or gives one unnamed total (metrics counts).
func pathReviews(run *results.Run, rs []results.Result) []proxyReviews {
	t, ok := sumReviews(rs)
	if !ok {
		return nil
	}
	n := float64(t.requests)
	by := map[string]*proxyReviews{}
	var order []string
	for _, r := range rs {
		if r.APIServer == nil || r.Requests == 0 {
			continue
		}
		for _, c := range r.APIServer.Callers {
			name := callerName(run, c.Caller)
			p, seen := by[name]
			if !seen {
				p = &proxyReviews{name: name}
				by[name] = p
				order = append(order, name)
			}
			p.tr += float64(c.TokenReviews) / n
			p.sar += float64(c.SubjectAccessReviews) / n
		}
	}
	var out []proxyReviews
	for _, name := range order {
		if p := by[name]; p.tr+p.sar >= MinReviewsPerRequest/10 {
			out = append(out, *p)
		}
	}
	if len(out) == 0 {
		out = []proxyReviews{{tr: float64(t.tr) / n, sar: float64(t.sar) / n}}
	}
	return out
}

// callerName is the lab component that asks as caller (a stand-in's
// identity), else the caller's last name segment.
func callerName(run *results.Run, caller string) string {
	if run.Lab != nil {
		for _, c := range run.Lab.Components {
			if s := c.Standin; s != nil && s.Identity != "" && (caller == s.Identity || strings.HasSuffix(caller, ":"+s.Identity)) {
				return c.Name
			}
		}
	}
	return caller[strings.LastIndex(caller, ":")+1:]
}

// faultRise is the per-second P50 inside a span against the seconds of
// the same target before it with no fault at all, else (a fault in force
// from the start) those without one anywhere in the run.
type faultRise struct {
	during, without float64 // NaN when unknown
	seconds         int     // seconds wholly inside the span
	// baseline says which seconds without gives: "before the fault" or
	// "without a fault".
	baseline string
}

// p50Rise prefers the seconds before the fault: those after it carry
// requests sent during it (an open loop's latency counts from the
// schedule), and whatever the clear itself disturbed.
func p50Rise(secs []second, sp FaultSpan, all []FaultSpan) faultRise {
	var in, before, clear []second
	for _, s := range secs {
		switch {
		case s.within(sp.From, sp.To):
			in = append(in, s)
		case clean(s, all):
			clear = append(clear, s)
			if !s.end().After(sp.From) {
				before = append(before, s)
			}
		}
	}
	r := faultRise{during: p50Median(in), seconds: len(in), baseline: "before the fault"}
	if r.without = p50Median(before); math.IsNaN(r.without) {
		r.without, r.baseline = p50Median(clear), "without a fault"
	}
	return r
}

// slowAPIServerFindings reports, for each delay set on the API server
// link and each target whose timeline it reached, the latency expected
// from the target's reviews per request against the P50 observed.
func slowAPIServerFindings(run *results.Run, tl *results.Timeline, spans []FaultSpan) []results.Finding {
	var out []results.Finding
	names, by := targetResults(run.Results)
	for _, sp := range spans {
		if sp.Fault.Link != results.LinkAPIServer || sp.Fault.Down || sp.Fault.DelayMs <= 0 {
			continue
		}
		for _, name := range names {
			rise := p50Rise(targetSeconds(run, tl, name), sp, spans)
			if rise.seconds == 0 {
				continue
			}
			out = append(out, slowFinding(run, name, sp, pathReviews(run, by[name]), rise))
		}
	}
	return out
}

func slowFinding(run *results.Run, target string, sp FaultSpan, path []proxyReviews, rise faultRise) results.Finding {
	api := labComponent(run, "kube-apiserver", "the API server")
	d := sp.Fault.DelayMs
	var b strings.Builder
	fmt.Fprintf(&b, "The link to the API server (%s) was slowed by +%s ms per round trip (%s, %s).", api, num(d), FaultLabel(sp.Fault), spanWords(run, sp))
	v := results.Values{"delay_ms": d, "seconds_in_fault": float64(rise.seconds)}
	expected := math.NaN()
	if len(path) > 0 {
		expected = 0
		var parts []string
		for _, p := range path {
			ms := (p.tr + p.sar) * d
			expected += ms
			who := "the path"
			if p.name != "" {
				who = p.name
			}
			parts = append(parts, fmt.Sprintf("%s %s TokenReviews + %s SubjectAccessReviews per request × %s ms = %s ms", who, num(p.tr), num(p.sar), num(d), num(ms)))
		}
		fmt.Fprintf(&b, " Each request was expected to pay %s ms more: %s.", num(expected), strings.Join(parts, "; "))
		v["expected_ms"] = expected
	} else {
		b.WriteString(" The run did not count the API server's reviews, so what each request should pay is unknown.")
	}
	b.WriteString(" " + riseWords(rise, expected))
	if !math.IsNaN(rise.during) {
		v["p50_during_ms"] = rise.during
	}
	if !math.IsNaN(rise.without) && !math.IsNaN(rise.during) {
		v["p50_without_ms"] = rise.without
		v["observed_rise_ms"] = rise.during - rise.without
	}
	return results.Finding{Kind: KindFaultSlowAPIServer, Severity: SeverityWarning, Target: target, Component: api,
		Evidence: b.String(),
		Advice: "Every TokenReview and SubjectAccessReview a proxy makes on a request's path is a round trip to the API server, so a slower API server adds " +
			"its delay that many times to each request. Caching reviews in the proxies (token and access-review caches) takes the API server off the path; " +
			"size and place the API server for the review rate the proxies make at your replica count.",
		Values: v}
}

// riseWords compares the P50 during the fault with the P50 without one.
func riseWords(r faultRise, expected float64) string {
	if math.IsNaN(r.during) {
		return "No request completed during the fault, so its P50 is unknown."
	}
	if math.IsNaN(r.without) {
		return fmt.Sprintf("The observed P50 during the fault was %s ms over %d s; no second of this target ran without a fault to compare with.", num(r.during), r.seconds)
	}
	rise := r.during - r.without
	s := fmt.Sprintf("The observed P50 rose from %s ms %s to %s ms during it (%s ms, over %d s)", num(r.without), r.baseline, num(r.during), signed(rise), r.seconds)
	if math.IsNaN(expected) || expected <= 0 {
		return s + "."
	}
	return s + fmt.Sprintf(", %s%% of the expected rise.", num(100*rise/expected))
}

func signed(x float64) string {
	if x >= 0 {
		return "+" + num(x)
	}
	return num(x)
}
