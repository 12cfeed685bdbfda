package analyze

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// KindClientRateLimit is the finding that an auth component's own API
// client throttled it: its reviews ran at the QPS its token bucket allows,
// and requests queued behind it.
const KindClientRateLimit = "client-rate-limit"

// RateLimitNear is how close to its allowed QPS a component's review rate
// must come to count as held by the limit; RateLimitWaitMs is the mean
// latency, beyond one token interval, that shows requests queued for it.
const (
	RateLimitNear   = 0.8
	RateLimitWaitMs = 50.0
)

// ClientRateLimitFindings names, per target, each lab component whose API
// calls (the audit log's count of its TokenReviews and
// SubjectAccessReviews) ran at the QPS its client-side rate limit allows
// while requests waited: its calls per request, the allowed QPS, the cap
// that puts on uncached requests per replica, and the flag that lifts it.
func ClientRateLimitFindings(run *results.Run) []results.Finding {
	if run == nil || run.Lab == nil {
		return nil
	}
	var out []results.Finding
	names, by := targetResults(run.Results)
	for _, name := range names {
		for _, c := range run.Lab.Components {
			if c.Standin == nil || c.Standin.APIQPS <= 0 {
				continue
			}
			if f, ok := rateLimitFinding(name, c, by[name]); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// callerTotals sums one caller's reviews over a target's results.
type callerTotals struct {
	calls, tr, sar, requests int64
	seconds, latencyMs       float64
}

func sumCaller(rs []results.Result, identity string) (callerTotals, bool) {
	var t callerTotals
	for _, r := range rs {
		if r.APIServer == nil || r.Requests == 0 || r.DurationS <= 0 {
			continue
		}
		for _, cr := range r.APIServer.Callers {
			if cr.Caller == identity || strings.HasSuffix(cr.Caller, ":"+identity) {
				t.tr += cr.TokenReviews
				t.sar += cr.SubjectAccessReviews
			}
		}
		t.requests += r.Requests
		t.seconds += r.DurationS
		t.latencyMs += r.Latency.Mean * float64(r.Requests)
	}
	t.calls = t.tr + t.sar
	return t, t.calls > 0 && t.requests > 0
}

func rateLimitFinding(target string, c results.LabComponent, rs []results.Result) (results.Finding, bool) {
	s := c.Standin
	t, ok := sumCaller(rs, s.Identity)
	if !ok {
		return results.Finding{}, false
	}
	// Each kind of review has its own bucket: the busier kind is the one
	// the limit holds.
	perKind := float64(max(t.tr, t.sar)) / t.seconds
	mean := t.latencyMs / float64(t.requests)
	wait := max(RateLimitWaitMs, 1000/s.APIQPS)
	perReq := float64(t.calls) / float64(t.requests)
	if perKind < RateLimitNear*s.APIQPS || mean < wait || perReq < MinReviewsPerRequest {
		return results.Finding{}, false
	}
	ev := fmt.Sprintf("%s (the %s stand-in) asked the API server per request: %s calls (%d TokenReviews, %d SubjectAccessReviews for %d requests in %s s, counted from the audit log): "+
		"%s calls/s of one kind against its client-side rate limit of %s QPS, burst %d, which caps uncached requests at %s req/s per replica; "+
		"the requests waited for it (mean latency %s ms).",
		c.Name, s.Plays, num(perReq), t.tr, t.sar, t.requests, num(t.seconds), num(perKind), num(s.APIQPS), s.APIBurst, num(s.CapRPS), num(mean))
	if len(s.WhatIf) > 0 {
		ev += " The lab ran it with " + strings.Join(s.WhatIf, " ") + "."
	}
	return results.Finding{
		Kind: KindClientRateLimit, Severity: SeverityCritical, Target: target, Component: c.Name,
		Evidence: ev, Advice: rateLimitAdvice(c.Name, s),
		Values: results.Values{"api_calls_per_request": perReq, "api_qps": s.APIQPS, "api_burst": float64(s.APIBurst),
			"cap_rps": s.CapRPS, "api_calls_per_second": perKind, "latency_ms": mean},
	}, true
}

func rateLimitAdvice(name string, s *results.Standin) string {
	lift := "raise its API client's QPS and burst"
	if s.Flag != "" {
		lift += " (in the lab: `authbench lab up " + s.Flag + "=N`)"
	}
	return fmt.Sprintf("The component's own API client throttles it before the API server is busy (client-go logs \"Waited ... due to client-side throttling\"): "+
		"every uncached request waits for a token of its bucket, so past %s req/s per replica requests queue without bound. To lift the cap, %s, "+
		"cache its reviews per token, or run more replicas of %s (each has its own bucket). Real traffic with many users' tokens misses a cache the way a token pool does.",
		num(s.CapRPS), lift, name)
}
