package analyze

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// Fault findings of a dependency taken down.
const (
	// KindFaultDown is the finding that a dependency of the auth path
	// (the API server, Keycloak) was down during the run: which layers
	// failed and how, how many requests failed, how long recovery took.
	KindFaultDown = "fault-down"
	// KindFaultKeycloakDown is what the OIDC clients and the ext_authz
	// service did while Keycloak was down.
	KindFaultKeycloakDown = "fault-keycloak-down"
)

// RecoveryTolerance is how far above its level before the fault a
// second's error rate may be and still count as recovered (a share of the
// second's requests), so that one stray error does not delay recovery.
const RecoveryTolerance = 0.01

// downWindow is a target's per-second account of one down span.
type downWindow struct {
	base             float64 // error rate before the fault (0 when unknown)
	baseKnown        bool
	requests, failed int64 // in the seconds overlapping the span
	authFailed       int64 // of failed, 401 and 403
	detected         bool
	detectS          float64 // fault start to the first second above base
	recovered        bool
	recoveryS        float64 // fault end to the first second back at base
	failedAfter      int64   // failures after the fault's end, until recovery
	remainingS       float64 // of the run after the fault's end
	afterSeconds     int
}

// failing reports whether a second's error rate is above the level before
// the fault; a second that completed nothing is failing (nothing got
// through).
func (w downWindow) failing(s second) bool {
	p := s.points
	if p.Requests == 0 {
		return true
	}
	return float64(p.Errors)/float64(p.Requests) > w.base+RecoveryTolerance
}

// downAccount reads a target's timeline around a down span; false when no
// second of the target overlaps it.
func downAccount(secs []second, sp FaultSpan, all []FaultSpan) (downWindow, bool) {
	var w downWindow
	var baseReq, baseErr int64
	var in, after []second
	for _, s := range secs {
		switch {
		case !s.end().After(sp.From) && clean(s, all):
			baseReq, baseErr = baseReq+s.points.Requests, baseErr+s.points.Errors
		case s.overlaps(sp.From, sp.To):
			in = append(in, s)
		case !s.at.Before(sp.To):
			after = append(after, s)
		}
	}
	if len(in) == 0 {
		return w, false
	}
	if baseReq > 0 {
		w.base, w.baseKnown = float64(baseErr)/float64(baseReq), true
	}
	for _, s := range in {
		w.requests += s.points.Requests
		w.failed += s.points.Errors
		w.authFailed += s.points.AuthErrors
		if !w.detected && w.failing(s) && s.points.Errors > 0 {
			w.detected, w.detectS = true, max(0, s.at.Sub(sp.From).Seconds())
		}
	}
	if !sp.Open {
		w.recover(in[len(in)-1], after, sp)
	}
	return w, true
}

// recover finds the first second, from the one the fault ended in, from
// which the error rate stays at its level before the fault for two
// seconds (or to the end of the run).
func (w *downWindow) recover(last second, after []second, sp FaultSpan) {
	cands := append([]second{last}, after...)
	w.afterSeconds = len(after)
	if len(after) > 0 {
		w.remainingS = after[len(after)-1].end().Sub(sp.To).Seconds()
	}
	for k, s := range cands {
		if !w.failing(s) && (k+1 == len(cands) || !w.failing(cands[k+1])) {
			w.recovered, w.recoveryS = true, max(0, s.at.Sub(sp.To).Seconds())
			return
		}
		if k > 0 {
			w.failedAfter += s.points.Errors
		}
	}
}

// failClosed reports whether the fault failed requests beyond the level
// before it.
func (w downWindow) failClosed() bool {
	return float64(w.failed) > (w.base+RecoveryTolerance)*float64(w.requests)
}

// downFindings reports each down span on the API server or Keycloak link,
// per target whose timeline it reached.
func downFindings(run *results.Run, tl *results.Timeline, spans []FaultSpan) []results.Finding {
	var out []results.Finding
	names, by := targetResults(run.Results)
	for _, sp := range spans {
		if !sp.Fault.Down || (sp.Fault.Link != results.LinkAPIServer && sp.Fault.Link != results.LinkKeycloak) {
			continue
		}
		for _, name := range names {
			w, ok := downAccount(targetSeconds(run, tl, name), sp, spans)
			if !ok {
				continue
			}
			lay := layersDuring(by[name], sp)
			out = append(out, downFinding(run, name, sp, w, lay))
			if sp.Fault.Link == results.LinkKeycloak && keycloakTokens(run, name) {
				out = append(out, keycloakFinding(run, name, sp, w, lay))
			}
		}
	}
	return out
}

// keycloakTokens reports whether a target sends tokens from an OIDC
// provider (the lab's Keycloak), so that its path verifies JWTs; a target
// the plan does not describe may.
func keycloakTokens(run *results.Run, target string) bool {
	for _, t := range run.Plan.Targets {
		if t.Name == target {
			return t.Token != nil && t.Token.OIDC != nil
		}
	}
	return true
}

// dependencyName is the lab component behind a link.
func dependencyName(run *results.Run, link string) string {
	if link == results.LinkKeycloak {
		return labComponent(run, "oidc-provider", "keycloak")
	}
	return labComponent(run, "kube-apiserver", "the API server")
}

func downFinding(run *results.Run, target string, sp FaultSpan, w downWindow, lay layerAccount) results.Finding {
	dep := dependencyName(run, sp.Fault.Link)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s link) was down %s (%s).", dep, sp.Fault.Link, spanWords(run, sp), FaultLabel(sp.Fault))
	v := results.Values{"down_s": sp.Seconds(), "requests_in_fault": float64(w.requests), "failed_in_fault": float64(w.failed),
		"error_rate_before": w.base}
	sev := SeverityInfo
	if w.failClosed() {
		sev = SeverityCritical
		fmt.Fprintf(&b, " The path failed closed: %d of the %d requests completed in the seconds it overlapped failed (%s), against an error rate of %s before it",
			w.failed, w.requests, FormatFraction(ratio(w.failed, w.requests)), FormatFraction(w.base))
		if w.detected {
			fmt.Fprintf(&b, "; the first failures came %s s after it went down", num(w.detectS))
			v["detect_s"] = w.detectS
		}
		b.WriteString(".")
	} else {
		fmt.Fprintf(&b, " No more requests failed than before it (%d of %d in the seconds it overlapped): the path did not need %s while it was down — it answered from its caches, or never asks it.",
			w.failed, w.requests, dep)
	}
	if s := lay.words(); s != "" {
		b.WriteString(" " + s)
	}
	b.WriteString(" " + recoveryWords(sp, w, v))
	return results.Finding{Kind: KindFaultDown, Severity: sev, Target: target, Component: dep,
		Evidence: b.String(), Advice: downAdvice(sp.Fault.Link, w.failClosed()), Values: v}
}

// recoveryWords says how long the error rate took to return to its level
// before the fault, and records it in v.
func recoveryWords(sp FaultSpan, w downWindow, v results.Values) string {
	switch {
	case sp.Open:
		return "It was still down when the run ended: no recovery could be measured."
	case !w.failClosed() && w.failedAfter == 0:
		v["recovery_s"] = 0
		return "Nothing had to recover."
	case w.recovered:
		v["recovery_s"], v["failed_after_fault"] = w.recoveryS, float64(w.failedAfter)
		return fmt.Sprintf("Recovery time: %s s from the fault's end until the per-second error rate was back to its level before the fault (%d requests failed in between; the timeline's resolution is 1 s).",
			num(w.recoveryS), w.failedAfter)
	case w.afterSeconds == 0:
		return "The run ended with the fault: no recovery could be measured."
	}
	v["failed_after_fault"] = float64(w.failedAfter)
	return fmt.Sprintf("It did not recover within the run: the error rate stayed above its level before the fault for the %s s the run went on after the fault's end (%d more requests failed).",
		num(w.remainingS), w.failedAfter)
}

func downAdvice(link string, failed bool) string {
	switch {
	case link == results.LinkAPIServer && failed:
		return "Without the API server a proxy that reviews every token (TokenReview, SubjectAccessReview) cannot decide and fails closed. " +
			"Token and review caches let recently seen tokens through an outage; the recovery time is what clients see after the API server is back (retries, reconnects, backoff)."
	case link == results.LinkAPIServer:
		return "Where the path reviews tokens, its proxies answered from their caches: an outage shorter than the caches' TTL goes unseen for tokens already reviewed; new tokens, or a longer outage, would fail."
	case failed:
		return "Without Keycloak, whatever needs the identity provider on a request's path (a token grant or refresh, discovery, keys not cached) fails. " +
			"Cache the JWKS in the ext_authz service, and renew tokens ahead of expiry so that a short outage passes unseen."
	}
	return "Verification from cached keys survives an outage of the identity provider: only token grants, refreshes and new signing keys need it."
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
