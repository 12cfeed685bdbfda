package load

import (
	"context"
	"io"
	"math"
	"sync"
	"sync/atomic"
)

// Progress is read by the CLI while an attack runs. The engine updates it
// about ten times a second, and exactly at the end.
type Progress struct {
	// Done counts completed requests (answered or failed).
	Done atomic.Int64
	// Errors counts those that did not succeed (a failure or HTTP >= 400).
	Errors atomic.Int64
}

// AttackOption configures one attack.
type AttackOption func(*attackConfig)

type attackConfig struct {
	hlog      io.Writer
	progress  *Progress
	intervals func(Interval)
}

// WithHistogramLog streams the corrected latency as an HdrHistogram V2
// interval log to w: one interval per second, values in microseconds (the
// histogram's unit), with StartTime/BaseTime headers and a legend.
func WithHistogramLog(w io.Writer) AttackOption { return func(c *attackConfig) { c.hlog = w } }

// WithProgress keeps p up to date while the attack runs.
func WithProgress(p *Progress) AttackOption { return func(c *attackConfig) { c.progress = p } }

// attack is one Attack call in progress.
type attack struct {
	a      *Attacker
	ctx    context.Context
	done   <-chan struct{}
	r      Request
	s      Spec
	open   bool
	period float64   // open model: ns between intended sends
	sched  *schedule // staged open model: the timeline instead of period
	start  int64
	end    int64 // start+Duration, when Duration bounds the attack

	seq         atomic.Int64
	stop        atomic.Bool // ctx is done: start nothing new
	interrupted atomic.Bool // a worker stopped early because of it
	ringRefused atomic.Bool // an event loop found no io_uring and ran on epoll
	workers     []*worker
	path        IOPath // the I/O path the attack runs on
}

// Attack sends r under the load s and measures it. Failures of requests
// are data in the returned Metrics, never a returned error. When ctx is
// cancelled no new request starts, requests in flight finish (within the
// client timeout) and the Metrics say Partial.
func (a *Attacker) Attack(ctx context.Context, r Request, s Spec, opts ...AttackOption) *Metrics {
	var cfg attackConfig
	for _, o := range opts {
		o(&cfg)
	}
	at := &attack{a: a, ctx: ctx, done: ctx.Done(), r: r, s: s, open: s.open(), path: IONetHTTP}
	switch {
	case s.staged():
		at.sched = newSchedule(s.Stages, s.Stride, s.Slot)
		if s.Duration <= 0 {
			at.s.Duration = s.Stages.Total().D()
		}
	case at.open:
		at.period = 1e9 / s.Rate
	}
	return at.run(cfg)
}

func (at *attack) run(cfg attackConfig) *Metrics {
	m := newMetrics(at.s)
	mk, evTarget, setupErr := at.doers()
	m.err = setupErr
	n := at.s.workers()
	if at.s.empty() {
		n = 0
	}
	for range n {
		w := newWorker(at)
		w.doer = mk(&w.tot.phases)
		at.workers = append(at.workers, w)
	}
	at.start = now()
	if at.s.Duration > 0 {
		at.end = at.start + int64(at.s.Duration)
	}
	stopWatch := context.AfterFunc(at.ctx, func() { at.stop.Store(true) })
	defer stopWatch()
	if at.ctx.Err() != nil {
		at.stop.Store(true)
		at.interrupted.Store(n > 0)
	}
	col := newCollector(at, cfg)
	go col.run()
	if evTarget != nil {
		runLoops(at, evTarget)
	} else {
		var wg sync.WaitGroup
		for _, w := range at.workers {
			wg.Go(w.run)
		}
		wg.Wait()
	}
	end := now()
	col.finish(end)
	m.fill(at, col, end)
	return m
}

// doers returns the constructor of each worker's client, and the target
// when the attack runs on event loops instead (no doer then). A request
// that cannot be built fails every request with the reason, as data.
func (at *attack) doers() (func(*phaseSet) doer, *target, error) {
	if at.a.useStd() {
		if _, err := newStd(at.a, at.r, &phaseSet{}); err != nil {
			return func(*phaseSet) doer { return failDoer{err} }, nil, err
		}
		return func(ph *phaseSet) doer {
			d, _ := newStd(at.a, at.r, ph)
			return d
		}, nil, nil
	}
	t, err := newTarget(at.a, at.r)
	if err != nil {
		return func(*phaseSet) doer { return failDoer{err} }, nil, err
	}
	at.path = at.a.ioPath(t)
	if at.path == IOEpoll || at.path == IOUring {
		return func(*phaseSet) doer { return nil }, t, nil
	}
	return func(ph *phaseSet) doer { return newH1(at.a, t, ph) }, nil, nil
}

// failDoer fails every request with the setup error.
type failDoer struct{ err error }

func (f failDoer) do(string, int64) (int, error) { return 0, f.err }
func (failDoer) release()                        {}

// next blocks until worker w may send its next request and returns the
// request's intended send time (open model). False means stop.
func (at *attack) next(w *worker) (int64, bool) {
	t, ok := at.reserve(w)
	if !ok || !at.open {
		return t, ok
	}
	if !w.waitUntil(t) {
		at.interrupted.Store(true)
		return 0, false
	}
	return t, true
}

// reserve is next without the wait: it claims worker w's next request and
// returns its intended send time (open model), which may lie ahead.
func (at *attack) reserve(w *worker) (int64, bool) {
	if at.stop.Load() {
		at.interrupted.Store(true)
		return 0, false
	}
	if !at.open {
		if at.end > 0 {
			return 0, now() < at.end
		}
		return 0, at.seq.Add(1) <= at.s.Requests
	}
	if at.sched != nil {
		return at.reserveStaged(w)
	}
	k := at.seq.Add(1) - 1
	t := at.intended(k)
	switch {
	case at.end == 0 && k >= at.s.Requests:
		return 0, false
	case at.end > 0 && (t >= at.end || now() >= at.end):
		// A backlog still unsent when the duration is over is abandoned,
		// as wrk2 and vegeta do; Metrics.Unsent counts it.
		return 0, false
	}
	return t, true
}

// reserveStaged is reserve on a staged schedule: this attack's next slot,
// the stage it belongs to kept by the worker for its per-stage figures.
func (at *attack) reserveStaged(w *worker) (int64, bool) {
	off, stage, ok := at.sched.at(at.sched.global(at.seq.Add(1) - 1))
	if !ok || now() >= at.end {
		// As in a timed attack at one rate, a backlog still unsent at the
		// end is abandoned and counted unsent.
		return 0, false
	}
	w.stage = stage
	return at.start + off, true
}

// intended is the open model's schedule: request k is due at start+k/Rate.
func (at *attack) intended(k int64) int64 {
	return at.start + int64(float64(k)*at.period)
}

// scheduled counts the requests due before the end of a timed open attack.
// Duration/period is exact but for the truncation of intended() to whole
// nanoseconds, which moves the count by a step or two: the corrections are
// bounded, so that no rate (a zero period, NaN) can make them spin. It runs
// after the attack, often because ctx was cancelled, so a context check
// would cut the count it must report.
func (at *attack) scheduled() int64 {
	if at.sched != nil {
		return at.sched.scheduled()
	}
	if !(at.period > 0) || math.IsInf(at.period, 0) {
		return 0
	}
	k := int64(math.Ceil(float64(at.s.Duration) / at.period))
	for range maxScheduleFix {
		if k <= 0 || at.intended(k-1) < at.end {
			break
		}
		k--
	}
	for range maxScheduleFix {
		if at.intended(k) >= at.end {
			break
		}
		k++
	}
	return k
}

// maxScheduleFix bounds scheduled's corrections of the rounded count.
const maxScheduleFix = 4
