package load

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

func TestClosedExactCounts(t *testing.T) {
	for _, cl := range clients {
		for _, tc := range []struct {
			n int64
			c int
		}{{1, 1}, {7, 3}, {100, 100}, {997, 13}, {5000, 50}} {
			t.Run(fmt.Sprintf("%s/n=%d,c=%d", cl.name, tc.n, tc.c), func(t *testing.T) {
				s, served := countingServer(t)
				a := attacker(t, plan.Client{}, cl.opts...)
				m, r := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: tc.n, Concurrency: tc.c})
				if r.Requests != tc.n || r.Successes != tc.n || r.Status["200"] != tc.n {
					t.Errorf("requests %d successes %d status %v, want %d", r.Requests, r.Successes, r.Status, tc.n)
				}
				if got := served.Load(); got != tc.n {
					t.Errorf("server saw %d requests, want %d", got, tc.n)
				}
				if got := m.Histogram().TotalCount(); got != tc.n {
					t.Errorf("histogram holds %d, want %d", got, tc.n)
				}
				if n, _, _ := sumSeries(m.Series()); n != tc.n {
					t.Errorf("timeline holds %d requests, want %d", n, tc.n)
				}
				if r.Model != plan.Closed || r.LatencyUncorrected != nil || r.AchievedRPS != nil {
					t.Errorf("closed result has open-model fields: %+v", r)
				}
				if r.Latency.P50 <= 0 || r.Latency.Min > r.Latency.P50 || r.Latency.P99 > r.Latency.Max {
					t.Errorf("latency out of order: %+v", r.Latency)
				}
				if r.Phases.Wait.Count != tc.n || r.Phases.Connect.Count < 1 {
					t.Errorf("phases: %+v", r.Phases)
				}
			})
		}
	}
}

func TestClosedDuration(t *testing.T) {
	s, served := countingServer(t)
	a := attacker(t, plan.Client{})
	start := time.Now()
	_, r := runAttack(t, a, Request{URL: s.URL}, Spec{Duration: 300 * time.Millisecond, Requests: 1, Concurrency: 4})
	if took := time.Since(start); took < 300*time.Millisecond || took > 2*time.Second {
		t.Errorf("a 300ms attack took %s", took)
	}
	if r.Requests < 2 || r.Requests != served.Load() {
		t.Errorf("requests %d, server saw %d: Duration must take precedence over Requests", r.Requests, served.Load())
	}
	if r.ThroughputRPS <= 0 || r.DurationS < 0.3 {
		t.Errorf("throughput %g over %gs", r.ThroughputRPS, r.DurationS)
	}
}

func TestRequestContent(t *testing.T) {
	type seen struct {
		method, host, auth, ua, custom, body string
		length                               int64
	}
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			got := make(chan seen, 10)
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- seen{r.Method, r.Host, r.Header.Get("Authorization"), r.Header.Get("User-Agent"), r.Header.Get("X-Custom"), string(b), r.ContentLength}
			}))
			t.Cleanup(s.Close)
			a := attacker(t, plan.Client{}, cl.opts...)
			h := http.Header{"X-Custom": {"yes"}, "Authorization": {"Basic replaced"}}
			req := Request{Method: "POST", URL: s.URL + "/p?q=1", Host: "example.test", Header: h, Body: []byte(`{"a":1}`), Token: staticToken("tok")}
			_, r := runAttack(t, a, req, Spec{Requests: 3, Concurrency: 1})
			if r.Successes != 3 {
				t.Fatalf("successes %d: %v", r.Successes, r.ErrorSamples)
			}
			want := seen{"POST", "example.test", "Bearer tok", DefaultUserAgent, "yes", `{"a":1}`, 7}
			for range 3 {
				if g := <-got; g != want {
					t.Errorf("server saw %+v, want %+v", g, want)
				}
			}
		})
	}
}

func TestDisableKeepAlive(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			var conns atomic.Int64
			s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
			s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}
			s.Start()
			t.Cleanup(s.Close)
			a := attacker(t, plan.Client{DisableKeepAlive: true}, cl.opts...)
			_, r := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 20, Concurrency: 2})
			if r.Successes != 20 || conns.Load() != 20 {
				t.Errorf("successes %d over %d connections, want 20 over 20", r.Successes, conns.Load())
			}
			if r.Phases.Connect.Count != 20 {
				t.Errorf("connect phase seen %d times, want 20", r.Phases.Connect.Count)
			}
		})
	}
}

func TestEarlyAnswerToLargeBody(t *testing.T) {
	t.Parallel() // mostly waiting on timers
	// The server refuses a 4 MB upload without reading it and closes.
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Connection", "close")
				w.WriteHeader(http.StatusRequestEntityTooLarge)
			}))
			t.Cleanup(s.Close)
			a := attacker(t, plan.Client{}, cl.opts...)
			_, r := runAttack(t, a, Request{Method: "POST", URL: s.URL, Body: make([]byte, 4<<20)}, Spec{Requests: 2, Concurrency: 1})
			if r.Status["413"] != 2 {
				t.Errorf("status %v errors %v %v, want 2 x 413", r.Status, r.Errors, r.ErrorSamples)
			}
		})
	}
}
