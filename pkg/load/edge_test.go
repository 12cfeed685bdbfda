package load

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// TestUnschedulableRateStops: a rate whose period rounds to nothing (the
// plan refuses it; the engine must still stop) ends a timed attack at its
// duration instead of spinning in the count of scheduled requests.
func TestUnschedulableRateStops(t *testing.T) {
	for _, rate := range []float64{math.Inf(1), 1e300, math.MaxFloat64} {
		t.Run("", func(t *testing.T) {
			s, _ := countingServer(t)
			a := attacker(t, plan.Client{})
			done := make(chan *Metrics, 1)
			go func() {
				done <- a.Attack(context.Background(), Request{URL: s.URL}, Spec{Rate: rate, Duration: 100 * time.Millisecond, Concurrency: 2})
			}()
			select {
			case m := <-done:
				if r := m.Result(); r.Requests == 0 {
					t.Errorf("rate %g: no request sent in 100ms", rate)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("rate %g: a 100ms attack still running after 20s", rate)
			}
		})
	}
}

// TestHostLineBreakNotSent: a Host override holding CRLF fails the attack
// as data and never reaches the wire as a header of its own.
func TestHostLineBreakNotSent(t *testing.T) {
	var injected, served atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		if r.Header.Get("X-Injected") != "" {
			injected.Add(1)
		}
	}))
	t.Cleanup(s.Close)
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			injected.Store(0)
			a := attacker(t, plan.Client{}, cl.opts...)
			m := a.Attack(context.Background(), Request{URL: s.URL, Host: "evil\r\nX-Injected: yes"}, Spec{Requests: 3, Concurrency: 1})
			r := m.Result()
			if injected.Load() != 0 {
				t.Fatalf("the server saw X-Injected on %d requests", injected.Load())
			}
			if r.Successes != 0 {
				t.Errorf("%d requests succeeded with a Host holding CRLF", r.Successes)
			}
		})
	}
	if served.Load() != 0 {
		t.Errorf("the server answered %d requests with a broken Host", served.Load())
	}
}
