package analyze

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// Finding kinds from the gateway's own account.
const (
	// KindGatewayAuthzErrors: responses the gateway made because its
	// ext_authz call failed or timed out, not the auth service's denials.
	KindGatewayAuthzErrors = "gateway-authz-errors"
	// KindGatewayTiming: the gateway's time in ext_authz and upstream
	// beside the ladder's layers.
	KindGatewayTiming = "gateway-timing"
)

// Response classes of pkg/load (results.Result.Answers keys); analyze
// does not import the engine.
const (
	answerAuthzError  = "gateway-authz-error"
	answerAuthzDenied = "gateway-authz-denied"
)

// roleExtAuthz is the lab's role of the gateway's ext_authz service.
const roleExtAuthz = "ext-authz"

// gatewayAuthz sums a target's gateway account and response classes.
type gatewayAuthz struct {
	requests, s403, classErrors, classDenied int64
	ext                                      results.ExtAuthzCounts
	counted                                  bool // some result had ext_authz counters
	component                                string
}

func sumGatewayAuthz(rs []results.Result) gatewayAuthz {
	var g gatewayAuthz
	for _, r := range rs {
		g.requests += r.Requests
		g.s403 += r.Status["403"]
		g.classErrors += r.Answers[answerAuthzError]
		g.classDenied += r.Answers[answerAuthzDenied]
		if r.Gateway == nil || r.Gateway.ExtAuthz == nil {
			continue
		}
		e := r.Gateway.ExtAuthz
		g.counted, g.component = true, r.Gateway.Component
		g.ext.OK += e.OK
		g.ext.Denied += e.Denied
		g.ext.Error += e.Error
		g.ext.FailureModeAllowed += e.FailureModeAllowed
		g.ext.Timeouts += e.Timeouts
	}
	return g
}

// gatewayAuthzFindings tells the gateway's own 403s (its authz call
// failed or timed out) from the auth service's denials, from Envoy's
// ext_authz counters and the run's response classes.
func gatewayAuthzFindings(target string, rs []results.Result) []results.Finding {
	g := sumGatewayAuthz(rs)
	errs := max(g.ext.Error, g.classErrors)
	if errs == 0 || g.requests == 0 {
		return nil
	}
	share := float64(errs) / float64(g.requests)
	sev := SeverityWarning
	if share >= 0.01 || g.ext.FailureModeAllowed > 0 {
		sev = SeverityCritical
	}
	return []results.Finding{{
		Kind: KindGatewayAuthzErrors, Severity: sev, Target: target, Component: g.component,
		Evidence: gatewayAuthzEvidence(g, share) + authzServiceEvidence(rs),
		Advice:   gatewayAuthzAdvice(g),
		Values: results.Values{"authz_errors": float64(g.ext.Error), "authz_timeouts": float64(g.ext.Timeouts),
			"authz_denied": float64(g.ext.Denied), "failure_mode_allowed": float64(g.ext.FailureModeAllowed),
			"class_authz_errors": float64(g.classErrors), "class_authz_denied": float64(g.classDenied),
			"status_403": float64(g.s403), "share": share},
	}}
}

func gatewayAuthzEvidence(g gatewayAuthz, share float64) string {
	var b strings.Builder
	if g.counted {
		fmt.Fprintf(&b, "The gateway's ext_authz call failed or timed out for %d of %d requests (%s%%): Envoy's ext_authz error counter %d",
			g.ext.Error, g.requests, num(share*100), g.ext.Error)
		if g.ext.Timeouts > 0 {
			fmt.Fprintf(&b, ", %d of them past the timeout", g.ext.Timeouts)
		}
		fmt.Fprintf(&b, "; the auth service itself denied %d.", g.ext.Denied)
	} else {
		fmt.Fprintf(&b, "The gateway marked %d of %d responses (%s%%) as its own, after a failed or timed-out ext_authz call.",
			g.classErrors, g.requests, num(share*100))
	}
	allowed := g.ext.FailureModeAllowed
	if allowed > 0 {
		fmt.Fprintf(&b, " %d were let through to the backend unauthorised (failure mode allow).", allowed)
	}
	fmt.Fprintf(&b, " The run counted %d × 403", g.s403)
	if g.classErrors+g.classDenied > 0 {
		fmt.Fprintf(&b, "; its error classes: %d gateway-authz-error (the gateway's, not a denial), %d gateway-authz-denied",
			g.classErrors, g.classDenied)
	}
	b.WriteString(".")
	if g.counted && g.ext.Error-allowed != g.classErrors && g.classErrors > 0 {
		fmt.Fprintf(&b, " The two accounts differ by %d: requests in flight when the gateway's counters were read.",
			abs64(g.ext.Error-allowed-g.classErrors))
	}
	return b.String()
}

// authzServiceEvidence names the ext_authz service's CPU limit and
// throttling, the usual cause of its slow answers.
func authzServiceEvidence(rs []results.Result) string {
	for _, c := range componentRuns(rs) {
		if c.role != roleExtAuthz {
			continue
		}
		if c.cpuLimit <= 0 && c.ratio() <= ThrottleRatio {
			return fmt.Sprintf(" The ext_authz service %s ran unthrottled, at %s cores on average.", c.name, num(c.cpuMean))
		}
		return fmt.Sprintf(" The ext_authz service %s ran under a CPU limit of %s, throttled in %s%% of its periods.",
			c.name, millicores(c.cpuLimit), num(c.ratio()*100))
	}
	return ""
}

func gatewayAuthzAdvice(g gatewayAuthz) string {
	a := "These are not the token's or the policy's answers: the gateway answers an ext_authz call that fails or outlives its timeout with the same 403 as a denial. " +
		"Give the ext_authz service the CPU it needs (its limit and throttling, its replicas), or raise the gateway's ext_authz timeout " +
		"(the lab's `lab up --authz-timeout`; OpenShift's GatewayConfig authProxyTimeout, default 5s) above the service's slowest answers under this load."
	if g.ext.FailureModeAllowed > 0 {
		return a + " Failure mode allow lets such requests through unauthorised: a security decision, not a fix."
	}
	return a + " Failure mode allow would turn them into unauthorised 200s: a security decision, not a fix."
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
