//go:build integration

package oauthtest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/ladder"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/stacks"
)

// labPlan is the lab's own scenario, reduced to the named targets.
func labPlan(t *testing.T, targets ...string) *plan.Plan {
	t.Helper()
	l := lab.Open(labDir, processes.Platform{})
	y, err := l.Scenario(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(filepath.Join(labDir, lab.ScenarioFile), y)
	if err != nil {
		t.Fatal(err)
	}
	var keep []plan.Target
	for _, name := range targets {
		tg, err := ladder.FindTarget(p, name)
		if err != nil {
			t.Fatal(err)
		}
		keep = append(keep, tg)
	}
	p.Targets = keep
	return p
}

// run sends the plan through the orchestrator and returns the review
// counts of each counter over the whole run (probe included).
func countedRun(t *testing.T, p *plan.Plan) ([]observe.ReviewTally, []observe.ReviewTally, int64) {
	t.Helper()
	cs := counters(t)
	before := readAll(t, cs)
	out, err := runner.Run(t.Context(), runner.Options{Plan: p, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	after := readAll(t, cs)
	var sent int64
	for _, r := range out.Run.Results {
		sent += r.Requests
		if r.Successes != r.Requests {
			t.Errorf("%s: %d of %d requests succeeded (%v)", r.Target, r.Successes, r.Requests, r.Status)
		}
	}
	return before, after, sent
}

// With one token the sidecar's caches answer, but kube-auth-proxy (the
// ext_authz service) asks a TokenReview for every request, as the real one
// does: no cache, no SAR. With a pool of distinct tokens every request is a
// first use for the sidecar too: one more TokenReview and one SAR per
// request, probe included. Both counters, /metrics and the audit log, must
// agree.
func TestReviewsCounted(t *testing.T) {
	const requests = 400
	base := labPlan(t, stacks.Target3xOAuth)
	base.Load = plan.Load{Requests: requests, Concurrency: 8, Iterations: 1}
	tests := []struct {
		name  string
		token *auth.Spec
		// wantSidecar is the sidecar's reviews of each kind per request
		// sent (the probe is one more request).
		wantSidecar int64
	}{
		{"one token", &auth.Spec{File: filepath.Join(labDir, "tokens", stacks.UserAlice)}, 0},
		{"pool of distinct tokens", &auth.Spec{Pool: &auth.Pool{File: poolSlice(t, 0, 1000)}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := *base
			p.Targets = append([]plan.Target(nil), base.Targets...)
			p.Targets[0].Token = tt.token
			before, after, sent := countedRun(t, &p)
			if sent != requests {
				t.Fatalf("sent %d requests, want %d", sent, requests)
			}
			n := sent + 1 // the probe
			for i, c := range counters(t) {
				w := observe.ReviewWindow(c.Source(), before[i], after[i], n)
				t.Logf("%s: %d TokenReviews, %d SARs for %d requests and the probe (%.2f ms of API server time per request); callers %+v",
					w.Source, w.TokenReviews, w.SubjectAccessReviews, sent, w.ReviewMsPerRequest, w.Callers)
				wantTR, wantSAR := n+tt.wantSidecar*n, tt.wantSidecar*n
				if w.TokenReviews < wantTR || w.TokenReviews > wantTR+4 || w.SubjectAccessReviews < wantSAR || w.SubjectAccessReviews > wantSAR+4 {
					t.Errorf("%s: %d TokenReviews and %d SARs, want %d and %d (kube-auth-proxy one TokenReview per request; the sidecar %d of each)",
						w.Source, w.TokenReviews, w.SubjectAccessReviews, wantTR, wantSAR, tt.wantSidecar)
				}
				if w.Source == observe.ReviewSourceAudit {
					if got := callerTokenReviews(w.Callers, stacks.SAKubeAuthProxyOAuth); got < n || got > n+2 {
						t.Errorf("audit: kube-auth-proxy made %d TokenReviews, want %d (one per request)", got, n)
					}
					if got := callerSARs(w.Callers, stacks.SAKubeAuthProxyOAuth); got != 0 {
						t.Errorf("audit: kube-auth-proxy made %d SARs, want none", got)
					}
				}
			}
		})
	}
}

func callerSARs(cs []results.CallerReviews, caller string) int64 {
	for _, c := range cs {
		if c.Caller == caller {
			return c.SubjectAccessReviews
		}
	}
	return 0
}

func callerTokenReviews(cs []results.CallerReviews, caller string) int64 {
	for _, c := range cs {
		if c.Caller == caller {
			return c.TokenReviews
		}
	}
	return 0
}
