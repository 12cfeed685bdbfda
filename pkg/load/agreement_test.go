package load

import (
	"context"
	"io"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/authbench/authbench/pkg/plan"
)

// TestOpenLoopAgreesWithNetHTTP runs the same open-loop schedule (2,000
// req/s over 50 connections) through the engine and through a plain
// net/http client that measures from its actual send, interleaved, and
// asserts that the engine's uncorrected percentiles are no worse than the
// reference's within noise. The engine once added a millisecond-wide tail of
// its own making here (p90 1 ms against 0.3 ms): its precise sleep held the
// thread and its P, starving the goroutines reading responses.
//
// Each I/O path runs the schedule, start+k/rate for k < rate x duration, as
// the reference does, and must send and count exactly that many requests.
func TestOpenLoopAgreesWithNetHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("timing agreement test")
	}
	for _, path := range paths {
		t.Run(string(path), func(t *testing.T) { testOpenLoopAgreesWithNetHTTP(t, path) })
	}
}

func testOpenLoopAgreesWithNetHTTP(t *testing.T, path IOPath) {
	s, served := countingServer(t)
	const rate, conns, dur, rounds = 2000, 50, 1000 * time.Millisecond, 5
	want := int64(rate * dur.Seconds())
	var eng, ref [2][]float64 // p90, p99 per round, ms
	for range rounds {
		a := attacker(t, plan.Client{}, WithIOPath(path))
		before := served.Load()
		_, r := runAttack(t, a, Request{URL: s.URL}, Spec{Rate: rate, Requests: want, Concurrency: conns})
		if got := served.Load() - before; r.Requests != want || r.Successes != want || got != want {
			t.Errorf("requests %d successes %d, server saw %d, want %d each", r.Requests, r.Successes, got, want)
		}
		u := r.LatencyUncorrected
		eng[0], eng[1] = append(eng[0], u.P90), append(eng[1], u.P99)
		p90, p99 := netHTTPOpenLoop(t, s.URL, rate, conns, dur)
		ref[0], ref[1] = append(ref[0], p90), append(ref[1], p99)
	}
	// Rounds are paired (same minute) and the median excess over the
	// tolerance decides, so that a neighbour's burst in one round does not.
	for i, q := range []struct {
		name  string
		slack float64 // ms
	}{{"p90", 0.25}, {"p99", 1.0}} {
		excess := make([]float64, rounds)
		for k := range rounds {
			excess[k] = eng[i][k] - (1.5*ref[i][k] + q.slack)
		}
		t.Logf("%s ms: engine %v, net/http %v", q.name, eng[i], ref[i])
		if m := median(excess); m > 0 {
			t.Errorf("engine's uncorrected %s exceeds 1.5 x net/http's + %.2f ms by %.3f ms (median of %d rounds)", q.name, q.slack, m, rounds)
		}
	}
}

// netHTTPOpenLoop is the reference: conns goroutines share the schedule
// start+k/rate, sleep until their request is due, and time it from the
// actual send to the end of the body.
func netHTTPOpenLoop(t *testing.T, url string, rate float64, conns int, dur time.Duration) (p90, p99 float64) {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: conns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	h := hdr.New(1, int64(time.Minute/time.Microsecond), 3)
	var (
		mu   sync.Mutex
		seq  atomic.Int64
		wg   sync.WaitGroup
		errs atomic.Int64
	)
	period := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for range conns {
		wg.Go(func() {
			for {
				due := start.Add(time.Duration(seq.Add(1)-1) * period)
				if due.Sub(start) >= dur {
					return
				}
				time.Sleep(time.Until(due))
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
				res, err := cl.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				us := time.Since(t0).Microseconds()
				if err != nil {
					errs.Add(1)
					continue
				}
				mu.Lock()
				h.RecordValue(us)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if errs.Load() > 0 || h.TotalCount() == 0 {
		t.Fatalf("reference client: %d errors, %d answers", errs.Load(), h.TotalCount())
	}
	return float64(h.ValueAtQuantile(90)) / 1e3, float64(h.ValueAtQuantile(99)) / 1e3
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
