package ladder

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

const chainToken = "chain-test-token"

// preciseSleep sleeps d: a timer for all but the last half millisecond,
// then yields until the deadline, so that a hop's delay is d and not d
// plus the timer's overshoot (a quarter of a millisecond here).
func preciseSleep(d time.Duration) {
	end := time.Now().Add(d)
	if d > time.Millisecond {
		time.Sleep(d - 500*time.Microsecond)
	}
	for time.Now().Before(end) {
		runtime.Gosched()
	}
}

// chain is an in-process stack shaped like the lab's 3x: a gateway that
// asks an ext_authz service, then forwards to an rbac-like proxy in front
// of an echo backend. Each hop adds a known delay.
type chain struct {
	echo, mid, auth, gw *httptest.Server
}

// Delays of the chain's hops.
const (
	gwDelay   = 2 * time.Millisecond
	authDelay = 5 * time.Millisecond
	midDelay  = 3 * time.Millisecond
)

func newChain(t *testing.T) *chain {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, Proxy: nil}}
	t.Cleanup(client.CloseIdleConnections)
	authorized := func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+chainToken }
	forward := func(w http.ResponseWriter, r *http.Request, to string) {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, to+r.URL.Path, nil)
		req.Header.Set("Authorization", r.Header.Get("Authorization"))
		res, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, res.Body)
	}
	c := &chain{}
	c.echo = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "echo response")
	}))
	c.mid = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		preciseSleep(midDelay)
		forward(w, r, c.echo.URL)
	}))
	c.auth = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		preciseSleep(authDelay)
		if !authorized(r) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "Authenticated")
	}))
	c.gw = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, c.auth.URL+r.URL.Path, nil)
		req.Header.Set("Authorization", r.Header.Get("Authorization"))
		res, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		preciseSleep(gwDelay)
		forward(w, r, c.mid.URL)
	}))
	for _, s := range []*httptest.Server{c.echo, c.mid, c.auth, c.gw} {
		t.Cleanup(s.Close)
	}
	return c
}

// target is the chain as a plan target, as a scenario would give it.
func (c *chain) target() plan.Target {
	return plan.Target{
		Name: "chain", URL: c.gw.URL + "/echo", Method: "GET",
		Token:  &auth.Spec{Static: true, Literal: chainToken},
		Layers: []string{"gateway", "auth", "rbac", "echo"},
		Rungs: []plan.Rung{
			{Layer: "echo", URL: c.echo.URL + "/echo"},
			{Layer: "gateway", URL: c.gw.URL + "/echo"},
			{Layer: "rbac", URL: c.mid.URL + "/echo"},
			{Layer: "auth", URL: c.auth.URL + "/echo"},
		},
	}
}

// chainOptions keep the ladder short: a fixed, low rate (the servers
// sleep, so their capacity is the CPU's, which the tests share).
func chainOptions(c *chain) Options {
	return Options{Plan: onePlan(c.target(), plan.Load{Duration: plan.Duration(150 * time.Millisecond), Concurrency: 16, Rate: 200}),
		Rounds: 8, ProbeDuration: 300 * time.Millisecond, ProbeWarmup: 100 * time.Millisecond, Resamples: 500}
}

// TestChainRecoversDelays runs the ladder over the in-process chain: the
// attributed P50s must recover each hop's delay. Each interval is widened
// by what the layer's hops cost besides the delay — an HTTP round trip on
// loopback through Go's client and server, well under a millisecond on an
// idle host — once per hop the layer makes: the gateway's figure carries
// its calls to the auth service and to the rbac proxy, rbac's its call to
// the backend; the auth service makes none, and its figure has the
// client's hop to it taken out by the backend's rung, but a handler that
// sleeps costs a wake-up the backend's does not.
func TestChainRecoversDelays(t *testing.T) {
	c := newChain(t)
	out, err := Run(context.Background(), chainOptions(c))
	if err != nil {
		t.Fatal(err)
	}
	l := out.Ladder
	if l == nil {
		t.Fatal("no ladder")
	}
	const perHop, below = 1.0, 0.2 // ms
	tests := []struct {
		layer string
		delay time.Duration
		hops  float64
	}{
		{"gateway", gwDelay, 2},
		{"auth", authDelay, 1},
		{"rbac", midDelay, 1},
	}
	for _, tc := range tests {
		t.Run(tc.layer, func(t *testing.T) {
			layer := findLayer(l, tc.layer)
			lo, hi, d := layer.CIMs.P50[0], layer.CIMs.P50[1], ms(tc.delay)
			if d > hi+below || d < lo-tc.hops*perHop {
				t.Errorf("added P50 %.3f ms [%.3f, %.3f], want %.1f ms plus at most %.1f ms of hops (%s)",
					layer.AddedMs.P50, lo, hi, d, tc.hops*perHop, layer.Formula)
			}
		})
	}
	if k := findLayer(l, "auth").Kind; k != results.LayerExtAuthz {
		t.Errorf("auth detected as %q, want %q from its own answer", k, results.LayerExtAuthz)
	}
	if k := findLayer(l, "rbac").Kind; k != results.LayerInline {
		t.Errorf("rbac detected as %q, want inline", k)
	}
	// The independently measured end-to-end slot agrees with the layers'
	// sum; the slack is for drift between turns, which the bootstrap
	// interval does not cover.
	const slack = 1.0
	if lo, hi := l.UnattributedCIMs.P50[0], l.UnattributedCIMs.P50[1]; lo > slack || hi < -slack {
		t.Errorf("unattributed P50 %.3f [%.3f, %.3f] ms: the layers should account for the end-to-end latency", l.UnattributedMs.P50, lo, hi)
	}
	checkInterleaved(t, out.Run, l)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func findLayer(l *results.Ladder, name string) results.LadderLayer {
	for _, layer := range l.Layers {
		if layer.Name == name {
			return layer
		}
	}
	return results.LadderLayer{Name: name + " (missing)"}
}

// checkInterleaved checks that the results ran in Schedule's order, every
// slot once per round, with the same load on every turn.
func checkInterleaved(t *testing.T, run *results.Run, l *results.Ladder) {
	t.Helper()
	wantOrder := []string{"echo", "rbac", "auth", "gateway", results.EndToEnd}
	if strings.Join(l.Order, ",") != strings.Join(wantOrder, ",") {
		t.Errorf("order %v, want %v", l.Order, wantOrder)
	}
	turns := Schedule(len(wantOrder), l.Rounds)
	if len(run.Results) != len(turns) {
		t.Fatalf("%d results, want %d", len(run.Results), len(turns))
	}
	for i, r := range run.Results {
		want := "chain/" + wantOrder[turns[i].Slot]
		if r.Target != want || r.Iteration != turns[i].Round {
			t.Errorf("result %d: %s round %d, want %s round %d", i, r.Target, r.Iteration, want, turns[i].Round)
		}
		if r.Model != plan.Open || r.TargetRPS != l.RateRPS {
			t.Errorf("result %d: %s at %g req/s, want open at %g", i, r.Model, r.TargetRPS, l.RateRPS)
		}
	}
}

// onePlan is a plan of one target with load l, as a scenario file would
// give it.
func onePlan(t plan.Target, l plan.Load) *plan.Plan {
	return &plan.Plan{Targets: []plan.Target{t}, Load: l}
}
