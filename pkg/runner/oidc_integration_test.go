//go:build integration

package runner_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
	"github.com/authbench/authbench/pkg/store"
)

// TestOIDCTokenIsRefreshedDuringALongRun: the 3x target's oidc token
// source (password grant for alice at the lab's Keycloak) keeps every
// request authenticated through a run that outlasts the access token.
func TestOIDCTokenIsRefreshedDuringALongRun(t *testing.T) {
	long := tokenLifespan + 12*time.Second
	// The runner gets its first token before the run starts, so the last
	// 12 s or more can only succeed with renewed tokens.
	p := labPlan(t, "oidc-refresh", plan.Load{Concurrency: 4, Rate: 20, Iterations: 1, Duration: plan.Duration(long)})
	run, dir := runLab(t, p)
	onlyStatus(t, run, "200")
	tl, err := store.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Series) != 1 || len(tl.Series[0].Points) == 0 {
		t.Fatalf("timeline: %+v", tl)
	}
	pts := tl.Series[0].Points
	last := pts[len(pts)-1]
	if last.T < (tokenLifespan + 5*time.Second).Seconds() {
		t.Errorf("the timeline ends at %.0f s, before the first token could have expired", last.T)
	}
	for i, pt := range pts {
		// The last second may be a sliver with no request due in it.
		if pt.AuthErrors > 0 || (pt.Requests == 0 && i < len(pts)-1) {
			t.Errorf("second %.0f: %d requests, %d auth errors", pt.T, pt.Requests, pt.AuthErrors)
		}
	}
}

// TestExpiredTokenGets401ThroughBoth3xAuthLayers: once alice's access
// token has expired, each 3x auth layer refuses it with 401, oauth2-proxy
// (verifying the JWT itself) and kube-rbac-proxy (TokenReview: the
// kube-apiserver verifies it), and so does the gateway in front. A fresh
// token gets 200 at the same entry points, so the 401s are the expiry's.
func TestExpiredTokenGets401ThroughBoth3xAuthLayers(t *testing.T) {
	st := needLab(t)
	if expiredErr != nil {
		t.Fatalf("getting alice's token right after lab up: %v", expiredErr)
	}
	iat, err := jwtClaim(expired, "iat")
	if err != nil {
		t.Fatal(err)
	}
	if life := expiredExpiry.Sub(time.Unix(iat, 0)); life != tokenLifespan {
		t.Errorf("Keycloak issued a token for %s, want the lab's lifespan %s", life, tokenLifespan)
	}
	if wait := time.Until(expiredExpiry.Add(time.Second)); wait > 0 {
		t.Logf("waiting %.0f s for alice's token to expire", wait.Seconds())
		time.Sleep(wait)
	}
	fresh, _, err := aliceToken()
	if err != nil {
		t.Fatal(err)
	}
	c := labClient(t, st.CACert)
	var tg lab.StackTarget
	for _, x := range st.Targets {
		if x.Name == stacks.Target3x {
			tg = x
		}
	}
	for _, rung := range tg.Layers {
		if rung.Layer == stacks.Echo3x {
			continue // the backend does no authentication
		}
		t.Run(rung.Layer, func(t *testing.T) {
			if code := get(t, c, rung.URL, expired); code != http.StatusUnauthorized {
				t.Errorf("GET %s with an expired token: %d, want 401", rung.URL, code)
			}
			if code := get(t, c, rung.URL, fresh); code != http.StatusOK {
				t.Errorf("GET %s with a fresh token: %d, want 200", rung.URL, code)
			}
		})
	}
}

func labClient(t *testing.T, caFile string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", caFile)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func get(t *testing.T, c *http.Client, u, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
