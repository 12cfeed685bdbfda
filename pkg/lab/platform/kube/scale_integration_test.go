//go:build integration

package kube_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/kube/deploy"
	"github.com/authbench/authbench/pkg/stacks"
)

// checkScale: `lab scale kube-auth-proxy-oauth=3` runs two more
// Deployments, each as its own ServiceAccount; the gateway balances the
// pool's requests across all three (each replica's TokenReviews in the
// audit log), `lab status` lists them, and scaling back to 1 deletes them.
func checkScale(t *testing.T, c *deploy.Client, dir string) {
	const requests = 300
	base := stacks.KubeAuthProxyOAuth
	start := time.Now()
	authbench(t, 3*time.Minute, "lab", "scale", base+"=3", "--lab-dir", dir)
	t.Logf("lab scale %s=3: %.1fs", base, time.Since(start).Seconds())
	got := deployments(t, c, stacks.Namespace, stacks.Stack3xOAuth)
	for i := 2; i <= 3; i++ {
		if !slices.Contains(got, stacks.ReplicaName(base, i)) {
			t.Errorf("after lab scale %s=3: Deployments %v, want %s", base, got, stacks.ReplicaName(base, i))
		}
	}
	if st := authbench(t, time.Minute, "lab", "status", "--lab-dir", dir); !strings.Contains(st, base+": 3 replicas behind "+stacks.EnvoyOAuth) {
		t.Errorf("lab status does not list the replicas:\n%s", st)
	}
	r := runN(t, scenarioOAuth(t, dir, "scenario-3x-oauth-scaled", nil), "3x-oauth-scaled", requests, 8)
	if len(r.Results) != 1 || r.Results[0].Successes != requests || r.Results[0].APIServer == nil {
		t.Fatalf("results %+v, want %d successes with API server reviews", r.Results, requests)
	}
	w := r.Results[0].APIServer
	var sum int64
	for i := 1; i <= 3; i++ {
		n := callerReviews(w.Callers, "system:serviceaccount:"+stacks.Namespace+":"+stacks.ReplicaName(base, i))
		t.Logf("replica %d: %d TokenReviews", i, n)
		// Round robin across three: about a third each.
		if n < requests/6 {
			t.Errorf("replica %d made %d TokenReviews of %d requests, want about a third (callers %+v)", i, n, requests, w.Callers)
		}
		sum += n
	}
	if sum < requests || sum > requests+4 {
		t.Errorf("the replicas made %d TokenReviews in all, want %d (one per request)", sum, requests)
	}
	checkScaleRoute(t, c, dir, requests)
	start = time.Now()
	authbench(t, 3*time.Minute, "lab", "scale", base+"=1", "--lab-dir", dir)
	t.Logf("lab scale %s=1: %.1fs", base, time.Since(start).Seconds())
	checkNoReplicas(t, c, stacks.Stack3xOAuth, base)
	if st := authbench(t, time.Minute, "lab", "status", "--lab-dir", dir); strings.Contains(st, "replicas behind") {
		t.Errorf("lab status still lists replicas after scaling back:\n%s", st)
	}
}

// checkScaleRoute: behind the route's HAProxy, `lab scale oauth-proxy=2`
// balances the 2x stack's pool requests across both oauth proxies (their
// TokenReviews in the audit log), and scaling back to 1 deletes the second.
func checkScaleRoute(t *testing.T, c *deploy.Client, dir string, requests int64) {
	base := stacks.OAuthProxy
	authbench(t, 3*time.Minute, "lab", "scale", base+"=2", "--lab-dir", dir)
	r := runN(t, scenarioOf(t, dir, "scenario-2x-scaled", stacks.Target2x, nil), "2x-scaled", int(requests), 8)
	if len(r.Results) != 1 || r.Results[0].Successes != requests || r.Results[0].APIServer == nil {
		t.Fatalf("2x results %+v, want %d successes with API server reviews", r.Results, requests)
	}
	for i := 1; i <= 2; i++ {
		n := callerReviews(r.Results[0].APIServer.Callers, "system:serviceaccount:"+stacks.Namespace+":"+stacks.ReplicaName(base, i))
		t.Logf("%s replica %d: %d TokenReviews", base, i, n)
		// HAProxy balances at random: about half each.
		if n < requests/4 {
			t.Errorf("%s replica %d made %d TokenReviews of %d requests, want about half (callers %+v)", base, i, n, requests, r.Results[0].APIServer.Callers)
		}
	}
	authbench(t, 3*time.Minute, "lab", "scale", base+"=1", "--lab-dir", dir)
	checkNoReplicas(t, c, stacks.Stack2x, stacks.Echo2x)
}

// checkNoReplicas: the stack's Deployments, once those being deleted are
// gone, hold base's and none of its replicas'.
func checkNoReplicas(t *testing.T, c *deploy.Client, stack, base string) {
	t.Helper()
	replica := func(d string) bool { _, i, ok := stacks.ReplicaOf(d); return ok && i > 1 }
	var got []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		got = deployments(t, c, stacks.Namespace, stack)
		if !slices.ContainsFunc(got, replica) || time.Now().After(deadline) {
			break
		}
	}
	if slices.ContainsFunc(got, replica) || !slices.Contains(got, base) {
		t.Errorf("after scaling back to 1: Deployments of %s %v, want %s and no replica", stack, got, base)
	}
}
