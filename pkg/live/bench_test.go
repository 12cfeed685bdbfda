package live

import (
	"io"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// BenchmarkSecond is what the view costs the process per second of a run:
// taking one second from the engine (on its collector's goroutine) and
// drawing one frame. At a second per op, ns/op over 1e9 is the share of
// one core it takes.
func BenchmarkSecond(b *testing.B) {
	v := New(io.Discard, Options{Title: "run", Components: func(time.Duration) []results.ComponentUsage { return components() }})
	v.Begin(runner.PhaseStart{Target: "echo", Iteration: 1, Spec: load.Spec{Rate: 1000, Duration: time.Hour}, Time: t0})
	c, u := hist(1000, 2000), hist(1000, 1000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		v.Interval(load.Interval{Start: t0.Add(time.Duration(i) * time.Second), End: t0.Add(time.Duration(i+1) * time.Second),
			Requests: 1000, Errors: 10, Classes: map[string]int64{"HTTP 5xx": 10}, Corrected: c, Uncorrected: u})
		v.draw()
	}
}
