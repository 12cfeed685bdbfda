package analyze

import (
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// authErrorFindings reports 401 and 403 responses apart from transport
// errors and timeouts, and when they happened.
func authErrorFindings(target string, rs []results.Result, tl *results.Timeline) []results.Finding {
	var requests, s401, s403, transport, timeouts, gateway int64
	for _, r := range rs {
		requests += r.Requests
		gateway += r.Answers[answerAuthzError]
		s401 += r.Status["401"]
		s403 += r.Status["403"]
		for class, n := range r.Errors {
			if class == "timeout" {
				timeouts += n
			} else {
				transport += n
			}
		}
	}
	auth := s401 + s403
	if auth == 0 || requests == 0 {
		return nil
	}
	share := float64(auth) / float64(requests)
	sev := SeverityWarning
	if share >= 0.01 {
		sev = SeverityCritical
	}
	ev := fmt.Sprintf("%d of %d requests (%s%%) were refused by authentication: %d × 401, %d × 403.",
		auth, requests, num(share*100), s401, s403)
	// The gateway's own 403s after failed authz calls start when the
	// authz service falls behind, which looks like a token expiring.
	if when := authTiming(target, tl, gateway == 0); when != "" {
		ev += " " + when
	}
	if gateway > 0 {
		ev += fmt.Sprintf(" Of the 403s, %d are the gateway's own after a failed or timed-out ext_authz call (finding %s), not the token's.",
			gateway, KindGatewayAuthzErrors)
	}
	ev += fmt.Sprintf(" Counted apart: %d transport errors and %d timeouts.", transport, timeouts)
	return []results.Finding{{
		Kind: KindAuthErrors, Severity: sev, Target: target,
		Evidence: ev, Advice: authAdvice(s401, s403, requests),
		Values: results.Values{"auth_errors": float64(auth), "status_401": float64(s401), "status_403": float64(s403),
			"share": share, "transport_errors": float64(transport), "timeouts": float64(timeouts)},
	}}
}

func authAdvice(s401, s403, requests int64) string {
	switch {
	case s401+s403 == requests:
		return "Every request was refused: the token is wrong for this endpoint (audience, issuer, scope or RBAC). Fix the credentials before reading any latency figure."
	case s401 >= s403:
		return "401 means the token was not accepted. If they start mid-run the token expired: use a refreshing source (command with refresh, or oidc). Otherwise check the issuer, audience and clock skew."
	}
	return "403 means the token was accepted but the request not authorised. Sporadic 403s under load usually mean the authoriser (a SubjectAccessReview or ext_authz call) failed or timed out, not a bad token: check the auth proxy's logs and whether it was throttled."
}

// authTiming says in which iterations and seconds the auth errors fell,
// and whether they look like a token expiring (none, then nearly all).
func authTiming(target string, tl *results.Timeline, expiry bool) string {
	if tl == nil {
		return ""
	}
	var parts []string
	for _, s := range tl.Series {
		if s.Target != target {
			continue
		}
		if p := seriesAuthTiming(s, expiry); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more iterations", len(parts)-5))
	}
	return "When: " + strings.Join(parts, "; ") + "."
}

func seriesAuthTiming(s results.Series, expiry bool) string {
	first, last, n := -1, -1, int64(0)
	for i, p := range s.Points {
		if p.AuthErrors > 0 {
			if first < 0 {
				first = i
			}
			last = i
			n += p.AuthErrors
		}
	}
	if first < 0 {
		return ""
	}
	out := fmt.Sprintf("iteration %d, %d between %s s and %s s", s.Iteration, n, num(s.Points[first].T), num(s.Points[last].T+1))
	if expiry && expiryPattern(s.Points, first) {
		out += " (none before, then in nearly every second to the end: consistent with a token expiring)"
	}
	return out
}

// expiryPattern: no auth error before first, and from there on at least
// 80% of the seconds have them and they are most of the responses.
func expiryPattern(pts []results.Point, first int) bool {
	if first == 0 {
		return false
	}
	var secs, withErr int
	var req, auth int64
	for _, p := range pts[first:] {
		secs++
		req += p.Requests
		auth += p.AuthErrors
		if p.AuthErrors > 0 {
			withErr++
		}
	}
	return secs >= 2 && float64(withErr) >= 0.8*float64(secs) && req > 0 && float64(auth) >= 0.5*float64(req)
}
