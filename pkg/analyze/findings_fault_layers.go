package analyze

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// classAuthToken is pkg/load's error class of a request the token source
// could not give a token for (nothing was sent).
const classAuthToken = "auth-token"

// layerAccount is what each layer of the path answered in the iterations
// a fault overlapped: the client's statuses and transport errors, the
// gateway's own account and its own answers, the token source's failures.
// The counts are whole iterations': the results are not split by second.
type layerAccount struct {
	iterations                  int
	statuses                    map[string]int64 // HTTP >= 400
	transport                   map[string]int64
	tokenFailures               int64
	answerErr, answerDenied     int64 // the gateway's own answers
	gateway                     string
	hasGateway                  bool
	gwErrors, gwDenied          int64
	gwTimeouts, gwFailureAllows int64
}

// layersDuring sums the results of a target that overlap the span.
func layersDuring(rs []results.Result, sp FaultSpan) layerAccount {
	a := layerAccount{statuses: map[string]int64{}, transport: map[string]int64{}}
	for _, r := range rs {
		if r.Start.IsZero() || !r.Start.Before(sp.To) || !r.End.After(sp.From) {
			continue
		}
		a.iterations++
		for code, n := range r.Status {
			if c, err := strconv.Atoi(code); err == nil && c >= 400 {
				a.statuses[code] += n
			}
		}
		for class, n := range r.Errors {
			if class == classAuthToken {
				a.tokenFailures += n
			} else if n > 0 {
				a.transport[class] += n
			}
		}
		a.answerErr += r.Answers[answerAuthzError]
		a.answerDenied += r.Answers[answerAuthzDenied]
		if g := r.Gateway; g != nil {
			a.hasGateway, a.gateway = true, firstOf(g.Component, g.Kind)
			if x := g.ExtAuthz; x != nil {
				a.gwErrors += x.Error
				a.gwDenied += x.Denied
				a.gwTimeouts += x.Timeouts
				a.gwFailureAllows += x.FailureModeAllowed
			}
		}
	}
	return a
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// words says, layer by layer, how the path answered; "" when no iteration
// overlapped the fault.
func (a layerAccount) words() string {
	if a.iterations == 0 {
		return ""
	}
	var parts []string
	if a.hasGateway {
		parts = append(parts, fmt.Sprintf("the gateway (%s) counted %d failed ext_authz calls (%d past its timeout, %d let through by failure_mode_allow) and %d denials by the ext_authz service",
			a.gateway, a.gwErrors, a.gwTimeouts, a.gwFailureAllows, a.gwDenied))
	}
	if a.answerErr+a.answerDenied > 0 {
		parts = append(parts, fmt.Sprintf("the gateway answered %d requests itself after a failed ext_authz call (fail-closed at the gateway) and passed on %d denials of the ext_authz service",
			a.answerErr, a.answerDenied))
	}
	if behind := sumCounts(a.statuses) - a.answerErr - a.answerDenied; a.hasGateway && behind > 0 && len(a.statuses) > 0 {
		parts = append(parts, fmt.Sprintf("%d error answers came from behind the gateway (the ext_authz service's own status, a sidecar or the backend)", behind))
	}
	if len(a.statuses) > 0 {
		parts = append(parts, "statuses ≥ 400 at the client: "+countWords(a.statuses))
	} else {
		parts = append(parts, "no HTTP error status at the client")
	}
	if len(a.transport) > 0 {
		parts = append(parts, "transport errors: "+countWords(a.transport))
	}
	if a.tokenFailures > 0 {
		parts = append(parts, fmt.Sprintf("authbench's token source failed %d times (those requests were not sent)", a.tokenFailures))
	}
	return fmt.Sprintf("Per layer, over the %d iteration(s) it overlapped: %s.", a.iterations, strings.Join(parts, "; "))
}

func sumCounts(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// countWords lists counts by key, in key order: "403 ×120, 503 ×4".
func countWords(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// keycloakFinding says what the OIDC clients (authbench's token source)
// and the ext_authz service (its keys) did while Keycloak was down.
func keycloakFinding(run *results.Run, target string, sp FaultSpan, w downWindow, lay layerAccount) results.Finding {
	kc := dependencyName(run, results.LinkKeycloak)
	var b strings.Builder
	fmt.Fprintf(&b, "While %s was down (%s, %s): ", kc, FaultLabel(sp.Fault), spanWords(run, sp))
	v := results.Values{"token_failures": float64(lay.tokenFailures), "auth_errors_in_fault": float64(w.authFailed)}
	if lay.tokenFailures > 0 {
		fmt.Fprintf(&b, "authbench's OIDC client could not get or refresh a token %d times, and those requests were not sent; ", lay.tokenFailures)
	} else {
		b.WriteString("authbench's token source needed nothing from it (no token grant or refresh failed); ")
	}
	sev := SeverityInfo
	switch {
	case !w.failClosed():
		fmt.Fprintf(&b, "no more requests failed than before it (%d of %d): the path kept verifying the JWTs with the signing keys it had cached (JWKS: the ext_authz service's, and the API server's OIDC authenticator's behind any TokenReview), so the outage went unseen by the requests.",
			w.failed, w.requests)
	case w.authFailed > 0:
		sev = SeverityWarning
		fmt.Fprintf(&b, "%d requests were refused with 401 or 403 (of %d failed): the ext_authz service or an OIDC client could not verify or obtain a token without it — keys it had not cached, discovery, or a refresh.",
			w.authFailed, w.failed)
	default:
		sev = SeverityWarning
		fmt.Fprintf(&b, "%d requests failed, none with 401 or 403: the failures were the path's own (errors, not denials).", w.failed)
	}
	if lay.hasGateway && lay.gwErrors > 0 {
		fmt.Fprintf(&b, " The gateway (%s) counted %d failed ext_authz calls in the iterations it overlapped.", lay.gateway, lay.gwErrors)
	}
	return results.Finding{Kind: KindFaultKeycloakDown, Severity: sev, Target: target, Component: kc, Evidence: b.String(),
		Advice: "JWT verification needs the identity provider only for keys not yet cached; token grants and refreshes need it every time. " +
			"Renew tokens well ahead of expiry and keep the JWKS cached in the ext_authz service, so that an identity-provider outage shorter than the tokens' remaining lifetime goes unseen.",
		Values: v}
}
