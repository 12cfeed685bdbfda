package ladder

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// limited serves at most slots requests at a time, each holding its slot
// for hold: its capacity is slots/hold whatever the client's concurrency.
func limited(slots int, hold time.Duration) http.Handler {
	sem := make(chan struct{}, slots)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sem <- struct{}{}
		time.Sleep(hold)
		<-sem
		_, _ = io.WriteString(w, "ok")
	})
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL + "/"
}

// TestCapacityFindsTheWeakestRung probes a fast backend behind a layer
// that serves two requests at a time for 5 ms each (at most 400 req/s):
// the probe must find that capacity, name the layer the bottleneck, and
// run the open loop at half of it.
func TestCapacityFindsTheWeakestRung(t *testing.T) {
	fast := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	slow := serve(t, limited(2, 5*time.Millisecond))
	out, err := Run(context.Background(), Options{
		Plan: onePlan(plan.Target{Name: "cap", URL: slow, Layers: []string{"slow", "fast"},
			Rungs: []plan.Rung{{Layer: "slow", URL: slow}, {Layer: "fast", URL: fast}}},
			plan.Load{Duration: plan.Duration(200 * time.Millisecond), Concurrency: 8}),
		Rounds:        1,
		ProbeDuration: 500 * time.Millisecond, ProbeWarmup: 50 * time.Millisecond, Resamples: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	l := out.Ladder
	caps := map[string]float64{}
	for _, r := range l.Rungs {
		caps[r.Layer] = r.CapacityRPS
	}
	// 2 / 5 ms = 400 req/s, less the timer's overshoot and the hop.
	if c := caps["slow"]; c < 150 || c > 420 {
		t.Errorf("slow rung capacity %.0f req/s, want about 400 (2 slots of 5 ms)", c)
	}
	if caps["fast"] < 2*caps["slow"] {
		t.Errorf("fast rung capacity %.0f req/s, want well above the slow rung's %.0f", caps["fast"], caps["slow"])
	}
	weakest := min(caps["slow"], caps["fast"], caps["end-to-end"])
	if l.RateFraction != DefaultRateFraction || math.Abs(l.RateRPS-DefaultRateFraction*weakest) > 0.1 {
		t.Errorf("rate %.1f req/s (fraction %g), want %g of the weakest capacity %.1f", l.RateRPS, l.RateFraction, DefaultRateFraction, weakest)
	}
	if l.Bottleneck != "slow" {
		t.Errorf("bottleneck %q, want slow", l.Bottleneck)
	}
}

func TestRungsRefused(t *testing.T) {
	ok := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	denied := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no token", http.StatusUnauthorized)
	}))
	var n atomic.Int64
	flaky := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	tests := []struct {
		name string
		t    plan.Target
		want string
	}{
		{"no rungs", plan.Target{Name: "x", URL: ok}, "has no rungs"},
		{"bad rung url", plan.Target{Name: "x", URL: ok, Rungs: []plan.Rung{{Layer: "a", URL: "ftp://x"}}}, "rung a"},
		{"rung not a layer", plan.Target{Name: "x", URL: ok, Layers: []string{"a"}, Rungs: []plan.Rung{{Layer: "b", URL: ok}}},
			`rung "b" is not one of its layers`},
		{"rung answers 401", plan.Target{Name: "x", URL: ok, Rungs: []plan.Rung{{Layer: "rbac", URL: denied}, {Layer: "echo", URL: ok}}},
			"probing rbac (" + denied + "): answered HTTP 401"},
		{"rung mostly fails", plan.Target{Name: "x", URL: ok, Rungs: []plan.Rung{{Layer: "flaky", URL: flaky}, {Layer: "echo", URL: ok}}},
			"HTTP 503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), Options{Target: tc.t.Name, Rounds: 1,
				Plan:          onePlan(tc.t, plan.Load{Duration: plan.Duration(50 * time.Millisecond), Concurrency: 2}),
				ProbeDuration: 100 * time.Millisecond, ProbeWarmup: time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}
