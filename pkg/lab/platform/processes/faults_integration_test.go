//go:build integration

package processes

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// medianLatency is the median time of n sequential GETs, and the last
// status.
func medianLatency(t *testing.T, u, token string, n int) (time.Duration, int) {
	t.Helper()
	var ds []time.Duration
	code := 0
	for range n {
		t0 := time.Now()
		code, _ = get(t, u, token)
		ds = append(ds, time.Since(t0))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[n/2], code
}

// A delay on the apiserver link reaches a request through the ext_authz
// service's TokenReview (one per request, uncached); --down fails it
// closed and --clear restores it; every change is in the fault log.
func TestAPIServerLinkFaults(t *testing.T) {
	tg := target(t, stacks.Target3xOAuth)
	l := lab.Open(labDir, Platform{})
	ctx := context.Background()
	t.Cleanup(func() { _, _ = l.ClearFault(ctx, results.LinkAPIServer) })
	start := time.Now()
	tok := staticToken(t, stacks.UserAlice)
	// Below the stand-in's client-go limit (5 QPS, burst 10).
	const n, delay = 5, 200 * time.Millisecond
	base, code := medianLatency(t, tg.URL, tok, n)
	if code != 200 {
		t.Fatalf("before any fault: status %d", code)
	}
	if _, err := l.SetFault(ctx, lab.Fault{Link: results.LinkAPIServer, Delay: delay}); err != nil {
		t.Fatal(err)
	}
	slow, code := medianLatency(t, tg.URL, tok, n)
	// One TokenReview per request on the link: at least the delay more,
	// and not two (the sidecar's reviews are cached).
	if code != 200 || slow-base < delay*9/10 || slow-base > 2*delay {
		t.Errorf("with the apiserver link %s slower: median %s (was %s), status %d; want about %s more", delay, slow, base, code, delay)
	}
	checkStatusFault(t, l, lab.Fault{Link: results.LinkAPIServer, Delay: delay})
	if _, err := l.SetFault(ctx, lab.Fault{Link: results.LinkAPIServer, Down: true}); err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, tg.URL, tok); code != 403 {
		t.Errorf("with the apiserver link down: %d %s, want the gateway's 403 (fail closed)", code, body)
	}
	if _, err := l.ClearFault(ctx, results.LinkAPIServer); err != nil {
		t.Fatal(err)
	}
	if code := eventually200(t, tg.URL, tok); code != 200 {
		t.Errorf("after --clear: status %d, want 200", code)
	}
	// --for: held, then cleared by HoldFault itself.
	ev, err := l.HoldFault(ctx, lab.Fault{Link: results.LinkAPIServer, Down: true, For: 300 * time.Millisecond}, nil)
	if err != nil || ev.Action != results.FaultClear {
		t.Fatalf("HoldFault = %+v, %v; want its clear event", ev, err)
	}
	set, clear := results.FaultSet, logged{action: results.FaultClear}
	// A set replaces the link's fault: no clear between the two sets.
	checkFaultLog(t, start, []logged{{action: set, delayMs: 200}, {action: set, down: true}, clear,
		{action: set, down: true, forMs: 300}, clear})
}

// eventually200 retries a GET for a few seconds: a cleared link takes new
// connections at once, the component notices on its next call.
func eventually200(t *testing.T, u, token string) int {
	t.Helper()
	code := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, _ = get(t, u, token); code == 200 {
			break
		}
	}
	return code
}

// checkStatusFault wants lab status to list f on its link, dated.
func checkStatusFault(t *testing.T, l *lab.Lab, f lab.Fault) {
	t.Helper()
	st, err := l.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Faults) != 1 || st.Faults[0].Fault != f || st.Faults[0].Since == nil {
		t.Errorf("status faults = %+v (error %q), want %+v since its set", st.Faults, st.FaultsError, f)
	}
}

// logged is what the test checks of a fault event.
type logged struct {
	action         string
	delayMs, forMs float64
	down           bool
}

// checkFaultLog wants the apiserver link's events since start to be want.
func checkFaultLog(t *testing.T, start time.Time, want []logged) {
	t.Helper()
	events, err := lab.ReadFaults(labDir)
	if err != nil {
		t.Fatal(err)
	}
	var got []logged
	for _, ev := range events {
		if !ev.At.Before(start) && ev.Link == results.LinkAPIServer {
			got = append(got, logged{ev.Action, ev.DelayMs, ev.ForMs, ev.Down})
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("fault log since the test began: %+v, want %+v", got, want)
	}
}

// Keycloak is reached through the keycloak link: its tokens' iss is the
// link's address, and the kube-apiserver and oauth2-proxy accept them
// (TestAliceGets200ThroughEveryStack's 3x rungs).
func TestKeycloakIssuerIsTheLink(t *testing.T) {
	st := needLab(t)
	link, ok := st.Link(results.LinkKeycloak)
	if !ok || len(link.Proxies) != 1 {
		t.Fatalf("no keycloak link in the state: %+v", st.Links)
	}
	parts := strings.Split(oidcToken(t, stacks.UserAlice), ".")
	if len(parts) != 3 {
		t.Fatal("alice's OIDC token is no JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Iss string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if want := "https://" + link.Proxies[0].Listen + "/realms/" + stacks.OIDCRealm; claims.Iss != want {
		t.Errorf("iss = %q, want the keycloak link's %q", claims.Iss, want)
	}
}
