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
	"github.com/authbench/authbench/pkg/scenario"
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
	r := onlyResult(t, limited)
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
	u := onlyResult(t, free)
	onlyStatus(t, free, "200")
	if u.Gateway == nil || u.Gateway.ExtAuthz == nil || u.Gateway.ExtAuthz.Error != 0 || len(u.Answers) != 0 {
		t.Errorf("without the limit: gateway %+v, classes %v; want no authz error", u.Gateway, u.Answers)
	}
	if fs := findings(free, analyze.KindGatewayAuthzErrors); len(fs) != 0 {
		t.Errorf("without the limit, findings %+v", fs)
	}
}

func onlyResult(t *testing.T, run *results.Run) results.Result {
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

// TestRouterAccountIn2x: the 2x router's HAProxy exporter gives the run's
// requests, by class, and its running mean times.
func TestRouterAccountIn2x(t *testing.T) {
	p := labPlan(t, "router-account", plan.Load{Concurrency: 8, Duration: plan.Duration(2 * time.Second), Iterations: 1})
	b, err := lab.Open(labDir, processes.Platform{}).Scenario(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	full, err := scenario.Parse("lab-scenario.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	p.Targets = nil
	for _, tg := range full.Targets {
		if tg.Name == stacks.Target2x {
			p.Targets = append(p.Targets, tg)
		}
	}
	run, _ := runLab(t, p)
	r := onlyResult(t, run)
	g := r.Gateway
	if g == nil || g.Kind != results.GatewayHAProxy {
		t.Fatalf("gateway account %+v, want HAProxy's", g)
	}
	t.Logf("run %d requests %v; HAProxy %d requests %v, upstream %+v, total %+v", r.Requests, r.Status, g.Requests, g.ByClass, g.Upstream, g.Downstream)
	if d := abs(g.ByClass["2xx"] - r.Status["200"]); d > 8 {
		t.Errorf("HAProxy counted %d × 2xx, the run %d × 200", g.ByClass["2xx"], r.Status["200"])
	}
	if g.Upstream == nil || g.Upstream.MeanMs <= 0 || g.Downstream == nil || g.Downstream.MeanMs <= 0 {
		t.Errorf("no running means: upstream %+v, total %+v", g.Upstream, g.Downstream)
	}
}
