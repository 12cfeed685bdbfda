package capacity

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Defaults of Options.
const (
	DefaultMin       = 10.0
	DefaultBudget    = 2 * time.Minute
	DefaultPrecision = 0.05
	DefaultRepeats   = 3
	// maxSteps bounds a search whose steps take no time (a broken clock).
	maxSteps = 200
)

// Reasons the search stopped (Result.Stop).
const (
	// StopPrecision: the interval between the capacity and the first
	// failing rate is narrower than Options.Precision.
	StopPrecision = "precision"
	// StopMax: Options.Max met the SLO, so the capacity is at least that.
	StopMax = "max"
	// StopBelowMin: Options.Min missed the SLO already.
	StopBelowMin = "below-min"
	// StopBudget: the next step would not fit in Options.Budget.
	StopBudget = "budget"
	// StopInterrupted: ctx was done.
	StopInterrupted = "interrupted"
)

// Phases of a step (Step.Phase).
const (
	PhaseRamp    = "ramp"
	PhaseBisect  = "bisect"
	PhaseConfirm = "confirm"
)

// Options configure a search.
type Options struct {
	// SLO is what every step must meet (see Check). Default: none, so only
	// the achieved rate is checked.
	SLO plan.SLO
	// Min is the first rate tried, in requests per second. Default DefaultMin.
	Min float64
	// Max caps the rates tried. Default 0: no cap but the budget.
	Max float64
	// Budget bounds the search's wall time: no step starts that would
	// not end within it (judged by the longest step so far). Default
	// DefaultBudget.
	Budget time.Duration
	// Precision is the relative width (first failing rate − capacity) /
	// capacity at which the bisection stops. Default DefaultPrecision.
	Precision float64
	// Repeats is how many measurements may be taken at a rate in the
	// bisection: a rate is measured until a majority of Repeats agree
	// (2 of 3), so that one stall of a busy host decides nothing. In the
	// ramp a first pass suffices. Default DefaultRepeats.
	Repeats int
	// HostCPUs is the number of CPUs of the host the local components
	// share. Default runtime.NumCPU().
	HostCPUs int
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Complete applies the defaults and rejects impossible values, so that a
// caller can reject them before preparing any load. Search calls it.
func (o *Options) Complete() error {
	if o.Min == 0 {
		o.Min = DefaultMin
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.Precision == 0 {
		o.Precision = DefaultPrecision
	}
	if o.Repeats == 0 {
		o.Repeats = DefaultRepeats
	}
	if o.HostCPUs == 0 {
		o.HostCPUs = runtime.NumCPU()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	switch {
	case plan.CheckRate(o.Min) != nil:
		return fmt.Errorf("minimum rate %w", plan.CheckRate(o.Min))
	case o.Max != 0 && plan.CheckRate(o.Max) != nil:
		return fmt.Errorf("maximum rate %w", plan.CheckRate(o.Max))
	case o.Max != 0 && o.Max < o.Min:
		return fmt.Errorf("maximum rate %g is below the minimum rate %g", o.Max, o.Min)
	case o.Budget < 0:
		return fmt.Errorf("budget must be positive, got %s", o.Budget)
	case o.Precision < 0 || o.Precision >= 1:
		return fmt.Errorf("precision must be a fraction in (0, 1), got %g", o.Precision)
	case o.Repeats < 0:
		return fmt.Errorf("repeats must be at least 1, got %d", o.Repeats)
	}
	return nil
}

// errStopped ends the search loop once s.stop says why.
var errStopped = errors.New("search stopped")

// searcher is one search in progress.
type searcher struct {
	o       Options
	measure Measure
	start   time.Time
	longest time.Duration
	steps   []Step
	stop    string
}

// Search finds the highest rate that meets o.SLO, measuring with measure.
// The Result is never nil: an interrupted search (ctx done, returned as
// its error) or a failing measurement keeps what was measured.
func Search(ctx context.Context, measure Measure, o Options) (*Result, error) {
	if err := o.Complete(); err != nil {
		return nil, err
	}
	s := &searcher{o: o, measure: measure, start: o.Now()}
	err := s.run(ctx)
	if errors.Is(err, errStopped) {
		err = nil
		if s.stop == StopInterrupted {
			err = ctx.Err()
		}
	}
	return s.result(), err
}

// run ramps while nothing failed, then bisects between the highest
// passing rate and the lowest failing one, confirming the passing bound
// by a majority of repeats once the interval is narrow.
func (s *searcher) run(ctx context.Context) error {
	for {
		lo, hi := bounds(s.steps)
		var err error
		switch {
		case len(s.steps) == 0:
			_, err = s.decide(ctx, s.o.Min, PhaseRamp, true)
		case lo == 0:
			s.stop = StopBelowMin
			return errStopped
		case hi == 0 && (s.o.Max == 0 || lo < s.o.Max):
			next := 2 * lo
			if s.o.Max > 0 {
				next = min(next, s.o.Max)
			}
			_, err = s.decide(ctx, next, PhaseRamp, true)
		case hi == 0 || hi-lo <= s.o.Precision*lo:
			var ok bool
			if ok, err = s.decide(ctx, lo, PhaseConfirm, false); err == nil && ok {
				s.stop = StopPrecision
				if hi == 0 {
					s.stop = StopMax
				}
				return errStopped
			}
		default:
			_, err = s.decide(ctx, (lo+hi)/2, PhaseBisect, false)
		}
		if err != nil {
			return err
		}
	}
}

// decide measures rate until a majority of Repeats measurements there
// agree, earlier ones included; quick accepts a first pass (the ramp).
func (s *searcher) decide(ctx context.Context, rate float64, phase string, quick bool) (bool, error) {
	need := s.o.Repeats/2 + 1
	for {
		pass, fail := tally(s.steps, rate)
		switch {
		case quick && pass > 0 && fail == 0, pass >= need:
			return true, nil
		case fail >= need:
			return false, nil
		}
		if _, err := s.step(ctx, rate, phase); err != nil {
			return false, err
		}
	}
}

// tally counts the passing and failing measurements at rate.
func tally(steps []Step, rate float64) (pass, fail int) {
	for _, st := range steps {
		switch {
		case st.Offered != rate:
		case st.Pass:
			pass++
		default:
			fail++
		}
	}
	return pass, fail
}

// step measures one rate, unless ctx is done or the step would overrun
// the budget.
func (s *searcher) step(ctx context.Context, rate float64, phase string) (bool, error) {
	switch {
	case ctx.Err() != nil:
		s.stop = StopInterrupted
		return false, errStopped
	case s.o.Now().Sub(s.start)+s.longest > s.o.Budget || len(s.steps) >= maxSteps:
		s.stop = StopBudget
		return false, errStopped
	}
	t0 := s.o.Now()
	p, err := s.measure(ctx, rate)
	d := s.o.Now().Sub(t0)
	if err != nil {
		if ctx.Err() != nil {
			s.stop = StopInterrupted
			return false, errStopped
		}
		return false, fmt.Errorf("measuring at %g req/s: %w", rate, err)
	}
	s.longest = max(s.longest, d)
	p.Offered = rate
	missed := Check(s.o.SLO, p)
	s.steps = append(s.steps, Step{N: len(s.steps) + 1, Phase: phase, CapacityPoint: p,
		Pass: len(missed) == 0, Missed: missed, Seconds: d.Seconds()})
	return len(missed) == 0, nil
}

// bounds reads the search's state from its steps: a rate fails when at
// least as many of its measurements failed as passed (a tie, left by the
// budget, counts as failing); hi is the lowest failing rate (0: none), lo
// the highest passing rate below it (0: none). A pass above a failure is
// not trusted.
func bounds(steps []Step) (lo, hi float64) {
	passed := map[float64]bool{}
	for _, st := range steps {
		pass, fail := tally(steps, st.Offered)
		passed[st.Offered] = pass > fail
		if pass <= fail && (hi == 0 || st.Offered < hi) {
			hi = st.Offered
		}
	}
	for rate, ok := range passed {
		if ok && (hi == 0 || rate < hi) && rate > lo {
			lo = rate
		}
	}
	return lo, hi
}

// DefaultStep is how long a step's load lasts unless the caller says.
const DefaultStep = 2 * time.Second

// File is the name of the search results in a capacity run's directory:
// a JSON array of Result, one per target.
const File = results.CapacityFile
