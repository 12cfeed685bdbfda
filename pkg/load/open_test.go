package load

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

func TestOpenHoldsRate(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want int64
	}{
		{"requests", Spec{Rate: 400, Requests: 200, Concurrency: 10}, 200},
		{"duration", Spec{Rate: 400, Duration: 500 * time.Millisecond, Concurrency: 10}, 200},
	} {
		for _, path := range paths {
			t.Run(tc.name+"/"+string(path), func(t *testing.T) { testOpenHoldsRate(t, path, tc.spec, tc.want) })
		}
	}
}

func testOpenHoldsRate(t *testing.T, path IOPath, spec Spec, want int64) {
	s, served := countingServer(t)
	a := attacker(t, plan.Client{}, WithIOPath(path))
	start := time.Now()
	_, r := runAttack(t, a, Request{URL: s.URL}, spec)
	took := time.Since(start)
	if r.Requests != want || served.Load() != want {
		t.Errorf("requests %d, server saw %d, want %d", r.Requests, served.Load(), want)
	}
	// 200 requests at 400/s: the last is due at 497.5ms.
	if took < 490*time.Millisecond || took > 1500*time.Millisecond {
		t.Errorf("took %s, want about 500ms", took)
	}
	if r.Model != plan.Open || r.TargetRPS != 400 || r.AchievedRPS == nil || r.LateSends == nil || r.LatencyUncorrected == nil {
		t.Fatalf("open-model fields missing: %+v", r)
	}
	// Loose: a loaded CI box can be late; precision is benchmarked.
	if *r.AchievedRPS < 300 || *r.AchievedRPS > 420 {
		t.Errorf("achieved %.1f req/s, want about 400", *r.AchievedRPS)
	}
	if r.Latency.P50 < r.LatencyUncorrected.P50 {
		t.Errorf("corrected p50 %g below uncorrected %g", r.Latency.P50, r.LatencyUncorrected.P50)
	}
	if r.IOPath != string(path) {
		t.Errorf("ran on %q, want %q", r.IOPath, path)
	}
}

// stallingServer stalls every request arriving in the second after its
// stallAt-th request, like a GC pause or a full pool would.
func stallingServer(t *testing.T, stallAt int64, stall time.Duration) *httptest.Server {
	t.Helper()
	var (
		n     atomic.Int64
		mu    sync.Mutex
		until time.Time
	)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if n.Add(1) == stallAt {
			until = time.Now().Add(stall)
		}
		d := time.Until(until)
		mu.Unlock()
		if d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done(): // the client gave up
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func TestOpenCorrectsStall(t *testing.T) {
	t.Parallel() // mostly waiting on timers
	// 600 requests at 200/s over 2 workers; the server stalls 1s once at
	// ~1s. About 200 requests are due during the stall and wait for a free
	// worker: their corrected latency shows it. Only the 2 in flight when it
	// began saw it from their actual send.
	s := stallingServer(t, 200, time.Second)
	a := attacker(t, plan.Client{})
	m, r := runAttack(t, a, Request{URL: s.URL}, Spec{Rate: 200, Requests: 600, Concurrency: 2})
	if r.Successes != 600 {
		t.Fatalf("successes %d: %v", r.Successes, r.ErrorSamples)
	}
	u := r.LatencyUncorrected
	t.Logf("corrected %+v\nuncorrected %+v\nlate %d", r.Latency, *u, *r.LateSends)
	if r.Latency.P99 < 800 || r.Latency.P90 < 300 {
		t.Errorf("corrected p90 %.1fms p99 %.1fms: the 1s stall is missing", r.Latency.P90, r.Latency.P99)
	}
	if u.P99 > 200 {
		t.Errorf("uncorrected p99 %.1fms: should hide most of the stall", u.P99)
	}
	if u.Max < 900 || r.Latency.Max < u.Max {
		t.Errorf("max corrected %.1f uncorrected %.1f: the stalled request itself is missing", r.Latency.Max, u.Max)
	}
	if *r.LateSends < 100 {
		t.Errorf("%d late sends: requests due during the stall were sent late", *r.LateSends)
	}
	if m.UncorrectedHistogram().TotalCount() != 600 {
		t.Errorf("uncorrected histogram holds %d", m.UncorrectedHistogram().TotalCount())
	}
	var top float64
	for _, p := range m.Series() {
		top = max(top, p.P99)
	}
	if top < 500 {
		t.Errorf("no second of the timeline shows the stall: max p99 %.1fms", top)
	}
}

func TestOpenBacklogAbandonedAtEnd(t *testing.T) {
	// A target slower than the rate: a timed attack must end on time, and
	// say how many due requests it never sent.
	s := stallingServer(t, 1, 10*time.Second)
	a := attacker(t, plan.Client{Timeout: plan.Duration(300 * time.Millisecond)})
	start := time.Now()
	m, r := runAttack(t, a, Request{URL: s.URL}, Spec{Rate: 100, Duration: 400 * time.Millisecond, Concurrency: 1})
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("took %s", took)
	}
	if r.Errors[ClassTimeout] < 1 || m.Unsent() < 30 || m.Unsent()+r.Requests != 40 {
		t.Errorf("timeouts %d, unsent %d, requests %d: want unsent+requests = 40", r.Errors[ClassTimeout], m.Unsent(), r.Requests)
	}
}

// TestSendLag checks that the open model reports its own noise floor and
// the closed model, which has no intended send time, does not.
func TestSendLag(t *testing.T) {
	s, _ := countingServer(t)
	a := attacker(t, plan.Client{})
	_, open := runAttack(t, a, Request{URL: s.URL}, Spec{Rate: 500, Requests: 200, Concurrency: 5})
	l := open.SendLag
	if l == nil {
		t.Fatal("open model: no send lag")
	}
	if l.P50Ms < 0 || l.P50Ms > l.P99Ms || l.P99Ms > l.MaxMs {
		t.Errorf("send lag not ordered: %+v", *l)
	}
	// Corrected latency runs from the intended time, so it exceeds the
	// uncorrected one by at most the largest lag (plus a microsecond of rounding).
	if d := open.Latency.Max - open.LatencyUncorrected.Max; d > l.MaxMs+0.002 {
		t.Errorf("corrected max - uncorrected max = %.3f ms > max send lag %.3f ms", d, l.MaxMs)
	}
	_, closed := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 20, Concurrency: 2})
	if closed.SendLag != nil {
		t.Errorf("closed model reports a send lag: %+v", *closed.SendLag)
	}
}
