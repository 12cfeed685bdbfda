package demo

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

func gatewayOutcome(target string, errs int64) *runner.Outcome {
	return &runner.Outcome{Run: &results.Run{Results: []results.Result{{Target: target, Requests: 100,
		Answers: map[string]int64{classAuthzError: errs},
		Gateway: &results.Gateway{Kind: results.GatewayEnvoy, ExtAuthz: &results.ExtAuthzCounts{Error: errs}}}}}}
}

func TestAuthzLines(t *testing.T) {
	st := &LimitStep{Limit: lab.Limit{Component: "oauth2-proxy"}, Target: "lab-3x",
		Limited: gatewayOutcome("lab-3x", 80), Lifted: gatewayOutcome("lab-3x", 0),
		AuthzErrors: &results.Finding{Kind: analyze.KindGatewayAuthzErrors,
			Values: results.Values{"authz_errors": 80, "authz_timeouts": 78, "authz_denied": 0}}}
	if got := authzLine(st); !strings.Contains(got, "answered 80 requests 403") || !strings.Contains(got, analyze.KindGatewayAuthzErrors) {
		t.Errorf("limited line: %s", got)
	}
	if got := liftedAuthzLine(st); !strings.Contains(got, "gone") || st.LiftedAuthzErrors != 0 {
		t.Errorf("lifted line: %s (%d)", got, st.LiftedAuthzErrors)
	}
	st.Lifted = gatewayOutcome("lab-3x", 3)
	if got := liftedAuthzLine(st); !strings.Contains(got, "3 ext_authz calls still") {
		t.Errorf("lifted line: %s", got)
	}
	// Through a router (2x) there is no ext_authz account: no line.
	two := &LimitStep{Target: "lab-2x", Limited: &runner.Outcome{Run: &results.Run{Results: []results.Result{{Target: "lab-2x"}}}}}
	if got := authzLine(two) + liftedAuthzLine(two); got != "" {
		t.Errorf("2x lines: %q", got)
	}
}
