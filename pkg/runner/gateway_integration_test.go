//go:build integration

package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// authzStormConcurrency queues enough requests at oauth2-proxy held to
// 50m (about 70 authz answers a second here) that most wait longer than
// the gateway's authzTimeout.
const authzStormConcurrency = 192

// TestGatewayAuthzTimeoutsAre403sTheGatewayMade is where the migration
// reports' unexplained 403s come from: the ext_authz service throttled
// under the gateway's timeout. Envoy answers every call that outlives it
// with a 403 no client can tell from a denial; the run's 403s must equal
// Envoy's ext_authz error counter (within the requests in flight at the
// window's edges), the run's classes and a finding must call them authz
// errors, not denials, and without the limit there must be none.
func TestGatewayAuthzTimeoutsAre403sTheGatewayMade(t *testing.T) {
	needLab(t)
	l := lab.Open(labDir, processes.Platform{})
	if err := l.SetLimit(context.Background(), lab.Limit{Component: stacks.OAuth2Proxy, MilliCPU: 50}); err != nil {
		t.Fatal(err)
	}
	lifted := false
	lift := func() {
		if !lifted {
			lifted = true
			if err := l.SetLimit(context.Background(), lab.Limit{Component: stacks.OAuth2Proxy}); err != nil {
				t.Fatalf("lifting the limit: %v", err)
			}
		}
	}
	t.Cleanup(lift)
	storm := plan.Load{Concurrency: authzStormConcurrency, Duration: plan.Duration(5 * time.Second), Iterations: 1,
		WarmupDuration: plan.Duration(time.Second)}
	limited, _ := runLab(t, labPlan(t, "authz-timeouts", storm))
	r := only3x(t, limited)
	g := r.Gateway
	if g == nil || g.ExtAuthz == nil {
		t.Fatalf("no gateway account in the result: %+v", g)
	}
	e := g.ExtAuthz
	t.Logf("run: %d requests, status %v, classes %v; Envoy: ext_authz %+v, %d downstream requests %v",
		r.Requests, r.Status, r.Answers, *e, g.Requests, g.ByClass)
	s403 := r.Status["403"]
	if s403 == 0 || e.Error == 0 {
		t.Fatalf("no authz timeouts: %d × 403, Envoy's ext_authz error %d; the storm did not outlive the %s timeout", s403, e.Error, authzTimeout)
	}
	if d := abs(s403 - (e.Error - e.FailureModeAllowed)); d > authzStormConcurrency {
		t.Errorf("run's 403s %d, Envoy's ext_authz errors %d: differ by %d, more than the %d requests in flight",
			s403, e.Error, d, authzStormConcurrency)
	}
	if e.Timeouts == 0 || e.Denied != 0 {
		t.Errorf("Envoy counted %d timeouts and %d denials; want timeouts and no denial (alice is allowed)", e.Timeouts, e.Denied)
	}
	if r.Answers[load.AnswerAuthzError] != s403 || r.Answers[load.AnswerAuthzDenied] != 0 {
		t.Errorf("classes %v: want every one of the %d × 403 as %s", r.Answers, s403, load.AnswerAuthzError)
	}
	fs := findings(limited, analyze.KindGatewayAuthzErrors)
	if len(fs) != 1 || !strings.Contains(fs[0].Evidence, "failed or timed out") || fs[0].Values["authz_denied"] != 0 {
		t.Fatalf("gateway-authz-errors findings: %+v", fs)
	}
	t.Logf("finding: %s / %s", fs[0].Evidence, fs[0].Advice)

	lift()
	free, _ := runLab(t, labPlan(t, "authz-unlimited", closedLoad()))
	u := only3x(t, free)
	onlyStatus(t, free, "200")
	if u.Gateway == nil || u.Gateway.ExtAuthz == nil || u.Gateway.ExtAuthz.Error != 0 || len(u.Answers) != 0 {
		t.Errorf("without the limit: gateway %+v, classes %v; want no authz error", u.Gateway, u.Answers)
	}
	if fs := findings(free, analyze.KindGatewayAuthzErrors); len(fs) != 0 {
		t.Errorf("without the limit, findings %+v", fs)
	}
}

func only3x(t *testing.T, run *results.Run) results.Result {
	t.Helper()
	if len(run.Results) != 1 {
		t.Fatalf("%d results, want 1", len(run.Results))
	}
	return run.Results[0]
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
