//go:build integration

package capacity_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/capacity/captest"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
)

// engineMeasure runs each step through the real engine's open loop, the
// way the orchestrator runs an iteration.
func engineMeasure(t *testing.T, url string, step time.Duration, workers int) capacity.Measure {
	a, err := load.NewAttacker(plan.Client{Timeout: plan.Duration(10 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	req := load.Request{Method: "GET", URL: url}
	return func(ctx context.Context, rate float64) (capacity.Point, error) {
		m := a.Attack(ctx, req, load.Spec{Model: plan.Open, Duration: step, Concurrency: workers, Rate: rate})
		if m.Err() != nil {
			return capacity.Point{}, m.Err()
		}
		if m.Partial() {
			return capacity.Point{}, ctx.Err()
		}
		p := capacity.PointFrom(m.Result())
		t.Logf("%7.1f req/s offered: achieved %7.1f, p50 %6.2f ms, p99 %7.2f ms, %d requests",
			rate, p.Achieved, p.P50, p.P99, p.Requests)
		return p, nil
	}
}

// TestSearchKnownServer searches servers of known capacity (workers /
// service time) with the real engine and checks the interval it states.
//
// Above capacity a rate can still pass: its backlog grows through the step
// and the step passes while the wait it adds stays under the latency
// limit, so no rate above capacity × (1 + (limit − service) / step)
// passes. Below capacity, a busy host's stalls can fail a rate near it
// (the backlog of a stall drains slowly when little capacity is spare), so
// the first failing rate may sit below the known capacity, by at most
// noiseTolerance. The latency limit is 8× the service time, above the
// stalls of a busy 2-core host; the engine's in-flight bound is 4× the
// workers, so that the server, not the generator, is what saturates.
func TestSearchKnownServer(t *testing.T) {
	const noiseTolerance = 0.10
	tests := []struct {
		workers int
		service time.Duration
		min     float64
	}{
		{16, 20 * time.Millisecond, 100}, // 800 req/s
		{8, 28 * time.Millisecond, 40},   // 285.7 req/s
	}
	step := 3 * time.Second
	for _, tt := range tests {
		srv := captest.New(tt.workers, tt.service)
		t.Cleanup(srv.Close)
		known := srv.Capacity()
		limit := 8 * tt.service
		t.Run(fmt.Sprintf("%d workers × %s", tt.workers, tt.service), func(t *testing.T) {
			o := capacity.Options{
				SLO: plan.SLO{P99: plan.Duration(limit), SuccessRate: 0.999},
				Min: tt.min, Budget: 75 * time.Second, Repeats: 2,
			}
			r, err := capacity.Search(context.Background(), engineMeasure(t, srv.URL, step, 4*tt.workers), o)
			if err != nil {
				t.Fatal(err)
			}
			r.Target = srv.URL
			if testing.Verbose() {
				capacity.WriteText(os.Stdout, r)
			}
			above := known * (1 + (limit-tt.service).Seconds()/step.Seconds())
			below := known * (1 - noiseTolerance)
			t.Logf("known capacity %.1f req/s; found [%.1f, %.1f] in %d steps, %.0f s, stop %s; allowed [<= %.1f, >= %.1f]",
				known, r.Capacity, r.FirstFail, len(r.Steps), r.ElapsedS, r.Stop, above, below)
			if r.Capacity <= 0 || r.FirstFail <= 0 {
				t.Fatalf("no interval found: [%g, %g], stop %s", r.Capacity, r.FirstFail, r.Stop)
			}
			if r.Capacity > above || r.FirstFail < below {
				t.Errorf("stated interval [%.1f, %.1f] req/s misses the known capacity %.1f (allowed: capacity <= %.1f, first failure >= %.1f)",
					r.Capacity, r.FirstFail, known, above, below)
			}
		})
	}
}
