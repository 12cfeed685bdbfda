package live

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// Defaults of the Options.
const (
	// DefaultWindow is the span of "the last seconds".
	DefaultWindow = 5 * time.Second
	// DefaultEvery is how often the view redraws.
	DefaultEvery = time.Second
)

// Options configure a View.
type Options struct {
	// Title names the command: "run", "capacity", "ladder".
	Title string
	// PhaseWord names a phase: "iteration" (default), "step", "round".
	PhaseWord string
	// Phases is the number of phases per target, shown as "n/Phases";
	// 0 hides it (a capacity search's steps are not known ahead).
	Phases int
	// PerPhase shows the latency of the phase so far, not of the target's
	// phases so far (a capacity search's steps differ in rate). Default
	// false.
	PerPhase bool
	// Window is the span of the recent figures. Default DefaultWindow.
	Window time.Duration
	// Every is how often the view redraws. Default DefaultEvery.
	Every time.Duration
	// Components returns the sampled components over the last Window
	// (observe.Monitor.Recent). Default nil: only what each phase
	// recorded is shown.
	Components func(time.Duration) []results.ComponentUsage
	// Size returns the terminal's columns and rows. Default 80x24.
	Size func() (int, int)
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

func (o *Options) complete() {
	if o.PhaseWord == "" {
		o.PhaseWord = "iteration"
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.Size == nil {
		o.Size = func() (int, int) { return 80, 24 }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// View is a runner.Watcher that redraws the run's figures on a terminal.
type View struct {
	o   Options
	scr *screen

	mu       sync.Mutex
	st       *state
	scratch  [2]*hdr.Histogram
	stopping bool

	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

var _ runner.Watcher = (*View)(nil)

// New returns a view drawing on out, a terminal.
func New(out io.Writer, o Options) *View {
	o.complete()
	return &View{o: o, scr: &screen{w: out}, st: newState(),
		scratch: [2]*hdr.Histogram{newHist(), newHist()}, stop: make(chan struct{})}
}

// Begin starts showing a phase.
func (v *View) Begin(p runner.PhaseStart) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.st.begin(p)
}

// Interval takes one closed second; it copies what it keeps.
func (v *View) Interval(iv load.Interval) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.st.interval(iv, v.o.Window)
}

// End closes the phase.
func (v *View) End(r *results.Result) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.st.end(r)
}

// Start redraws the view every Every until Close. When ctx ends (the
// first Ctrl-C) the frame on screen is left as it was, under the signal's
// message, and the view goes on below it saying the run is stopping.
func (v *View) Start(ctx context.Context) {
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		t := time.NewTicker(v.o.Every)
		defer t.Stop()
		done := ctx.Done()
		v.draw()
		for {
			select {
			case <-v.stop:
				return
			case <-done:
				done = nil
				v.mu.Lock()
				v.stopping = true
				v.mu.Unlock()
				v.scr.detach()
				v.draw()
			case <-t.C:
				v.draw()
			}
		}
	}()
}

// Close stops redrawing and erases the view, leaving the terminal as
// it would be without it.
func (v *View) Close() {
	v.once.Do(func() {
		close(v.stop)
		v.wg.Wait()
		v.scr.erase()
	})
}

// Log is a writer whose lines are printed above the view (the run's
// messages, which would otherwise tear the frame).
func (v *View) Log() io.Writer { return logWriter{v.scr} }

func (v *View) draw() {
	w, h := v.o.Size()
	v.scr.draw(Render(v.Snapshot(), w, h), w)
}

// Snapshot is the figures of the moment.
func (v *View) Snapshot() Snapshot {
	var comps []results.ComponentUsage
	if v.o.Components != nil {
		comps = v.o.Components(v.o.Window)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.snapshot()
	if len(comps) > 0 {
		s.Components, s.ComponentsNote = comps, ""
	}
	return s
}

// snapshot reads the state; v.mu is held.
func (v *View) snapshot() Snapshot {
	st := v.st
	s := Snapshot{Title: v.o.Title, Window: v.o.Window, PhaseWord: v.o.PhaseWord, PhasesDone: st.ended, RunRequests: st.runReqs,
		RunErrors: st.runErrs, Stopping: v.stopping}
	if len(st.lastComp) > 0 {
		s.Components, s.ComponentsNote = st.lastComp, "as the last phase recorded them"
	}
	p := st.phase
	if p == nil {
		return s
	}
	open := isOpen(p.Spec)
	s.Phase = v.phaseName(p)
	s.Elapsed, s.Duration = v.o.Now().Sub(p.Time), p.Spec.Duration
	if s.Duration == 0 {
		s.Total = p.Spec.Requests
	}
	s.Done, s.Errors = st.phaseSum.requests, st.phaseSum.errors
	s.Classes = counts(st.phaseSum.classes)
	s.RunRequests, s.RunErrors = s.RunRequests+s.Done, s.RunErrors+s.Errors
	if open {
		s.Target = p.Spec.Rate
		if len(p.Spec.Stages) > 0 {
			// A staged run's target is the current stage's rate.
			_, s.Target = p.Spec.Stages.At(s.Elapsed)
		}
	}
	s.Workers = p.Spec.Concurrency
	v.recent(&s, open)
	so := st.targets[p.Target]
	s.SoFarLabel = "so far"
	if v.o.PerPhase {
		so, s.SoFarLabel = st.phaseSum, "this "+v.o.PhaseWord
	}
	s.SoFar = latencyOf(so.hist, so.uhist, open)
	s.Pods = podShares(st.secs)
	return s
}

// recent fills the window's figures from its seconds.
func (v *View) recent(s *Snapshot, open bool) {
	h, u := v.scratch[0], v.scratch[1]
	h.Reset()
	u.Reset()
	for _, x := range v.st.secs {
		h.Merge(x.hist)
		if x.uhist != nil {
			u.Merge(x.uhist)
		}
		s.RecentRequests += x.requests
		s.RecentErrors += x.errors
	}
	if span := spanOf(v.st.secs).Seconds(); span > 0 {
		s.Rate = float64(s.RecentRequests) / span
	}
	s.Recent = latencyOf(h, u, open)
}

func (v *View) phaseName(p *runner.PhaseStart) string {
	n := fmt.Sprintf("%s %d", v.o.PhaseWord, p.Iteration)
	if v.o.Phases > 0 {
		n += fmt.Sprintf("/%d", v.o.Phases)
	}
	return p.Target + ", " + n
}
