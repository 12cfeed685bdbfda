package runner

import (
	"fmt"
	"sync"
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/report"
)

// showProgress redraws a progress line until the returned stop is called.
// It reads the engine's atomic counters, so it costs the hot path nothing.
func (e *execution) showProgress(name string, it int, p *load.Progress) (stop func()) {
	w := e.progress
	if w == nil {
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
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprint(w, "\r\033[K"+report.Progress(report.ProgressState{
					Target: name, Iteration: it, Iterations: e.plan.Load.Iterations,
					Done: p.Done.Load(), Total: total, Errors: p.Errors.Load(),
					Elapsed: time.Since(start), Duration: e.plan.Load.Duration.D(),
				}))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
