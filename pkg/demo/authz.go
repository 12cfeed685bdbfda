package demo

import (
	"fmt"

	"github.com/authbench/authbench/pkg/runner"
)

// authzErrorsOf is the gateway's 403s after failed or timed-out ext_authz
// calls in a run's target: Envoy's ext_authz error counter, or the run's
// own class of them where the gateway was not read.
func authzErrorsOf(r *runner.Outcome, target string) (n int64, counted bool) {
	if r == nil || r.Run == nil {
		return 0, false
	}
	var byGateway, byClass int64
	for _, res := range r.Run.Results {
		if res.Target != target {
			continue
		}
		byClass += res.Answers[classAuthzError]
		if g := res.Gateway; g != nil && g.ExtAuthz != nil {
			byGateway += g.ExtAuthz.Error
			counted = true
		}
	}
	if counted {
		return byGateway, true
	}
	return byClass, byClass > 0
}

// classAuthzError is pkg/load's class of the gateway's 403s after a
// failed authz call (load.AnswerAuthzError).
const classAuthzError = "gateway-authz-error"

// authzLine: the gateway's own 403s under the limit, and the finding
// that tells them from the auth service's denials.
func authzLine(st *LimitStep) string {
	f := st.AuthzErrors
	if f == nil {
		n, counted := authzErrorsOf(st.Limited, st.Target)
		if !counted {
			return ""
		}
		return fmt.Sprintf("The gateway's ext_authz calls: %d failed or timed out; no finding.", n)
	}
	return fmt.Sprintf("The gateway answered %.0f requests 403 because its ext_authz call to %s failed or timed out "+
		"(%.0f past the timeout), not because the auth service denied them (%.0f denials): finding %s. "+
		"These are the migration reports' unexplained 403s.",
		f.Values["authz_errors"], st.Limit.Component, f.Values["authz_timeouts"], f.Values["authz_denied"], f.Kind)
}

// liftedAuthzLine: what remains of those 403s once the limit is lifted.
func liftedAuthzLine(st *LimitStep) string {
	n, counted := authzErrorsOf(st.Lifted, st.Target)
	if !counted && st.AuthzErrors == nil {
		return ""
	}
	st.LiftedAuthzErrors = n
	if n == 0 {
		return "Limit lifted: no ext_authz call failed or timed out; the gateway's 403s are gone."
	}
	return fmt.Sprintf("Limit lifted: %d ext_authz calls still failed or timed out.", n)
}
