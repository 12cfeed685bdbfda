package runner

import (
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/results"
)

// Watcher sees a run while it goes (the CLI's live view): each recorded
// phase as it begins and ends, and every second the executor closes in
// between. Its methods must return quickly: Interval is called on the
// executor's collecting goroutine, once a second per engine (per pod).
// The runner imports no view; the CLI hands one in.
type Watcher interface {
	// Begin says a recorded phase starts.
	Begin(PhaseStart)
	// Interval is one closed second of the phase (load.WithIntervals).
	Interval(load.Interval)
	// End says the phase is over: its result as recorded (components
	// included), or nil when it could not run.
	End(*results.Result)
}

// PhaseStart names a recorded phase as it begins.
type PhaseStart struct {
	// Target is the result's target name; Iteration its iteration (a
	// capacity step's number, a ladder round).
	Target    string
	Iteration int
	// Spec is the load it sends.
	Spec load.Spec
	// Time is when it begins.
	Time time.Time
}

// watchBegin tells the watcher, if any, that a phase begins, and returns
// the phase's interval hook and the call that ends it.
func (s *Session) watchBegin(name string, it int, spec load.Spec) (func(load.Interval), func(*results.Result)) {
	w := s.c.Watch
	if w == nil {
		return nil, func(*results.Result) {}
	}
	w.Begin(PhaseStart{Target: name, Iteration: it, Spec: spec, Time: time.Now()})
	return w.Interval, w.End
}
