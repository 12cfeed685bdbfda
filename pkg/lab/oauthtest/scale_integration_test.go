//go:build integration

package oauthtest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// scalePool is the token pool of the scale test: each replica's cache
// misses each of these tokens once.
const scalePool = 100

// Scaled out to three replicas, kube-auth-proxy makes three times the
// TokenReviews of one replica for the same requests: each replica has its
// own cache, which misses each token once. The real kube-auth-proxy has no
// cache (one TokenReview per request, whatever the replicas), so the lab
// gives its stand-in one (--authz-cache) to ask the question the
// migration reports raised about caching proxies. Each count is taken on
// a fresh lab (down, then up again), so that every cache starts cold.
func TestScaleMultipliesTokenReviews(t *testing.T) {
	dir := t.TempDir()
	one := scaledReviews(t, dir, 1)
	three := scaledReviews(t, dir, 3)
	total := func(m map[string]int64) (n int64) {
		for _, v := range m {
			n += v
		}
		return n
	}
	a, b := total(one), total(three)
	t.Logf("TokenReviews of the ext_authz service for %d requests of %d pool tokens: one replica %d %v, three %d %v",
		15*scalePool, scalePool, a, one, b, three)
	if a < scalePool*9/10 || a > scalePool+2 {
		t.Errorf("one replica made %d TokenReviews for a pool of %d tokens, want about one per token (%v)", a, scalePool, one)
	}
	if ratio := float64(b) / float64(a); ratio < 2.7 || ratio > 3.1 {
		t.Errorf("three replicas made %d TokenReviews, one made %d: ratio %.2f, want about 3 (%v)", b, a, ratio, three)
	}
	if len(three) != 3 {
		t.Errorf("TokenReviews came from %d identities, want the 3 replicas' own: %v", len(three), three)
	}
	for caller, n := range three {
		if n < scalePool*85/100 || n > scalePool+2 {
			t.Errorf("%s made %d TokenReviews, want about one per token of %d", caller, n, scalePool)
		}
	}
}

// scaledReviews starts a fresh 3x-oauth lab in dir, scales the ext_authz
// service to n replicas, sends the same requests, and returns the
// TokenReviews each of its replicas made, by caller.
func scaledReviews(t *testing.T, dir string, n int) map[string]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	l := lab.Open(dir, processes.Platform{})
	_, err := l.Up(ctx, lab.UpOptions{Out: io.Discard, Supervisor: []string{os.Args[0], "-test.run=^$"},
		Config: lab.Config{Stacks: []string{stacks.Stack3xOAuth}, TokenPool: scalePool,
			AuthzCache: 10 * time.Minute, AuthzAPIQPS: stacks.KubeAPIQPS}})
	if err != nil {
		t.Fatalf("lab up: %v", err)
	}
	defer func() { _ = l.Down(context.WithoutCancel(ctx), io.Discard) }()
	if err := l.Scale(ctx, stacks.Scale{Component: stacks.KubeAuthProxyOAuth, Replicas: n}); err != nil {
		t.Fatal(err)
	}
	st, err := l.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Replicas(stacks.KubeAuthProxyOAuth); got != n {
		t.Fatalf("lab state has %d replicas of %s, want %d", got, stacks.KubeAuthProxyOAuth, n)
	}
	p := scalePlan(t, l)
	audit := observe.NewAuditReviews(filepath.Join(dir, lab.AuditLog))
	before, err := audit.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runner.Run(ctx, runner.Options{Plan: p, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Run.Results {
		if r.Successes != r.Requests {
			t.Fatalf("%d replicas: %d of %d requests succeeded (%v)", n, r.Successes, r.Requests, r.Status)
		}
	}
	after, err := audit.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return extAuthzTokenReviews(observe.ReviewWindow(audit.Source(), before, after, 1).Callers)
}

// scalePlan is the lab's 3x-oauth target with the pool, 15 requests per
// token: enough that each replica sees every token under Envoy's round
// robin.
func scalePlan(t *testing.T, l *lab.Lab) *plan.Plan {
	t.Helper()
	y, err := l.Scenario(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(filepath.Join(l.Dir(), lab.ScenarioFile), y)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ladder.FindTarget(p, stacks.Target3xOAuth)
	if err != nil {
		t.Fatal(err)
	}
	p.Targets = []plan.Target{tg}
	p.Load = plan.Load{Requests: 15 * scalePool, Concurrency: 8, Iterations: 1}
	return p
}

// extAuthzTokenReviews keeps the ext_authz service's replicas' callers.
func extAuthzTokenReviews(cs []results.CallerReviews) map[string]int64 {
	out := map[string]int64{}
	for _, c := range cs {
		name := c.Caller[strings.LastIndex(c.Caller, ":")+1:]
		if base, _, ok := stacks.ReplicaOf(name); ok && base == stacks.KubeAuthProxyOAuth && c.TokenReviews > 0 {
			out[name] = c.TokenReviews
		}
	}
	return out
}
