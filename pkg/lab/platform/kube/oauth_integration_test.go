//go:build integration

package kube_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// poolSize is the kube lab's token pool in TestKubeLab: more distinct
// tokens than the pool run sends, so that each of its requests is a first
// use (a cache miss in both proxies).
const poolSize = 2000

// checkOAuthAuth: through 3x-oauth, alice 200, no token 403 and a
// tampered token 403 (the kube-auth-proxy stand-in's, as the real one),
// bob 403 (the sidecar's SAR: kube-auth-proxy lets him through), a pool
// user 200 (bound like alice).
func checkOAuthAuth(t *testing.T, hc *http.Client, dir string, s *lab.State) {
	var u string
	for _, tg := range s.Targets {
		if tg.Name == stacks.Target3xOAuth {
			u = tg.URL
		}
	}
	if u == "" {
		t.Fatalf("no %s target in %+v", stacks.Target3xOAuth, s.Targets)
	}
	alice := secret(t, filepath.Join(dir, "tokens", "alice"))
	if !strings.HasPrefix(alice, "sha256~") {
		t.Errorf("alice's token does not look like an OpenShift OAuth token (sha256~...)")
	}
	last := "A"
	if strings.HasSuffix(alice, last) {
		last = "B"
	}
	pool := strings.Fields(secret(t, stacks.TokenPoolPath(dir)))
	if len(pool) != poolSize || s.TokenPool == nil || s.TokenPool.Users != poolSize {
		t.Fatalf("pool file holds %d tokens, state %+v; want %d", len(pool), s.TokenPool, poolSize)
	}
	for _, tc := range []struct {
		who, token string
		want       int
	}{
		{"alice", alice, 200}, {"no token", "", 403}, {"bob", secret(t, filepath.Join(dir, "tokens", "bob")), 403},
		{"tampered", alice[:len(alice)-1] + last, 403}, {stacks.PoolUser(poolSize), pool[poolSize-1], 200},
	} {
		if got := status(t, hc, u, tc.token); got != tc.want {
			t.Errorf("%s as %s: status %d, want %d", stacks.Target3xOAuth, tc.who, got, tc.want)
		}
	}
}

// scenarioOAuth is the lab's scenario with only its 3x-oauth target, its
// token source replaced by token when given, and without the Prometheus
// sampling (whose settle would add 13 s per run to a check of review
// counts, which come from the apiserver's audit log).
func scenarioOAuth(t *testing.T, dir, name string, token map[string]any) string {
	t.Helper()
	return scenarioOf(t, dir, name, stacks.Target3xOAuth, token)
}

// scenarioOf is scenarioOAuth for any one target.
func scenarioOf(t *testing.T, dir, name, target string, token map[string]any) string {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(authbench(t, time.Minute, "lab", "scenario", "--lab-dir", dir)), &doc); err != nil {
		t.Fatal(err)
	}
	var keep []any
	for _, tg := range doc["targets"].([]any) {
		if m := tg.(map[string]any); m["name"] == target {
			if token != nil {
				m["token"] = token
			}
			keep = append(keep, m)
		}
	}
	doc["targets"] = keep
	delete(doc, "prometheus")
	delete(doc, "observe")
	b, _ := yaml.Marshal(doc)
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkOAuthReviews: kube-auth-proxy (the ext_authz stand-in) asks one
// TokenReview per request and no SAR, whatever the token; the sidecar's
// caches answer alice's one token, and with the lab's pool (round-robin,
// every token new) it makes one TokenReview and one SAR per request, as the
// audit log counts them per caller.
func checkOAuthReviews(t *testing.T, dir string) {
	const requests = 300
	for _, tc := range []struct {
		name    string
		token   map[string]any // nil: the lab's scenario's, the pool
		sidecar int64          // the sidecar's reviews of each kind per request
	}{
		{"one token", map[string]any{"file": filepath.Join(dir, "tokens", "alice")}, 0},
		{"pool", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runN(t, scenarioOAuth(t, dir, "scenario-3x-oauth-"+strings.ReplaceAll(tc.name, " ", "-"), tc.token),
				"3x-oauth-"+strings.ReplaceAll(tc.name, " ", "-"), requests, 8)
			if len(r.Results) != 1 || r.Results[0].Successes != requests {
				t.Fatalf("results %+v, want %d successes", r.Results, requests)
			}
			w := r.Results[0].APIServer
			if w == nil || w.Source != "audit" {
				t.Fatalf("reviews not counted from the audit log: %+v", w)
			}
			t.Logf("%s: %d TokenReviews, %d SARs for %d requests (%.2f ms of API server time per request); callers %+v",
				tc.name, w.TokenReviews, w.SubjectAccessReviews, requests, w.ReviewMsPerRequest, w.Callers)
			// The window is the measured phase; a probe or warm-up request
			// outside it may spill a review or two into it.
			wantTR, wantSAR := int64(requests)*(1+tc.sidecar), int64(requests)*tc.sidecar
			if w.TokenReviews < wantTR || w.TokenReviews > wantTR+4 || w.SubjectAccessReviews < wantSAR || w.SubjectAccessReviews > wantSAR+4 {
				t.Errorf("%d TokenReviews and %d SARs, want %d and %d", w.TokenReviews, w.SubjectAccessReviews, wantTR, wantSAR)
			}
			if n := callerReviews(w.Callers, stacks.SAKubeAuthProxyOAuth); n < requests || n > requests+2 {
				t.Errorf("audit: kube-auth-proxy made %d TokenReviews, want %d (one per request)", n, requests)
			}
		})
	}
}

func callerReviews(cs []results.CallerReviews, caller string) int64 {
	for _, c := range cs {
		if c.Caller == caller {
			return c.TokenReviews
		}
	}
	return 0
}
