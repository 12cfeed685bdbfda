package runner

import (
	"sync"
	"time"

	"github.com/authbench/authbench/pkg/load"
)

// ProgressView shows a recorded phase's progress while it runs (the CLI:
// a line redrawn on a terminal).
type ProgressView interface {
	// Show shows the phase's state; it is called every 250 ms.
	Show(load.ProgressState)
	// Clear removes what Show showed, once the phase is over.
	Clear()
}

// showProgress shows the phase's progress until the returned stop is
// called. It reads the engine's atomic counters, so it costs the hot path
// nothing.
func (e *execution) showProgress(name string, it int, p *load.Progress) (stop func()) {
	v := e.progress
	if v == nil {
		return func() {}
	}
	total := e.plan.Load.Requests
	if e.plan.Load.Duration > 0 {
		total = 0
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				v.Clear()
				return
			case <-tick.C:
				v.Show(load.ProgressState{
					Target: name, Iteration: it, Iterations: e.plan.Load.Iterations,
					Done: p.Done.Load(), Total: total, Errors: p.Errors.Load(),
					Elapsed: time.Since(start), Duration: e.plan.Load.Duration.D(),
				})
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
