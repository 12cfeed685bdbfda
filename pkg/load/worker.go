package load

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry: 1 µs to 1 hour at 3 significant digits. Values are
// microseconds; longer latencies are clamped to the top so that no request
// is ever dropped from the counts.
const (
	histMin    = 1
	histMax    = int64(time.Hour / time.Microsecond)
	histDigits = 3
)

// doer sends one request: net/http or the engine's HTTP/1.1 client.
type doer interface {
	// do sends one request whose send time is start (engine clock) and
	// returns the response status, or the failure.
	do(token string, start int64) (status int, err error)
	// release hands back what the worker held, at the end of the attack.
	release()
}

// interval is what a worker recorded since the collector last swapped it.
type interval struct {
	hist  *hdr.PackedHistogram // corrected latency, µs, answered requests
	uhist *hdr.PackedHistogram // uncorrected (open model only)
	lag   *hdr.PackedHistogram // send lag, µs (open model only)
	n     int64
	errs  int64           // not successful: transport failure or HTTP >= 400
	auth  int64           // 401 and 403
	fails [numFails]int64 // errs by class, for a live view
}

func newInterval(open bool) *interval {
	iv := &interval{hist: hdr.NewPacked(histMin, histMax, histDigits)}
	if open {
		iv.uhist = hdr.NewPacked(histMin, histMax, histDigits)
		iv.lag = hdr.NewPacked(histMin, histMax, histDigits)
	}
	return iv
}

func (iv *interval) reset() {
	iv.hist.Reset()
	if iv.uhist != nil {
		iv.uhist.Reset()
		iv.lag.Reset()
	}
	iv.n, iv.errs, iv.auth = 0, 0, 0
	iv.fails = [numFails]int64{}
}

// worker sends requests one at a time.
type worker struct {
	at    *attack
	doer  doer
	timer *time.Timer
	fine  *fineTimer // open model

	// mu guards cur, done and failed against the collector, which takes it
	// a few times a second: practically uncontended.
	mu     sync.Mutex
	cur    *interval
	done   int64
	failed int64

	spare *interval // the collector's
	tot   totals    // the worker's own until it exits

	stages []stageAcc // staged open model: per stage, the worker's own
	stage  int        // the stage of the request in hand
}

func newWorker(at *attack) *worker {
	w := &worker{at: at, cur: newInterval(at.open), spare: newInterval(at.open), tot: newTotals()}
	if at.sched != nil {
		w.stages = newStageAccs(len(at.sched.stages))
	}
	return w
}

func (w *worker) run() {
	defer w.doer.release()
	if w.timer != nil {
		defer w.timer.Stop()
	}
	if w.fine != nil {
		defer w.fine.close()
	}
	for {
		intended, ok := w.at.next(w)
		if !ok {
			return
		}
		w.one(intended)
	}
}

// one sends a request whose intended send time is intended (open model).
func (w *worker) one(intended int64) {
	token, ok := w.token(intended)
	if !ok {
		return
	}
	sent := now()
	status, err := w.doer.do(token, sent)
	w.record(intended, sent, now(), status, err)
}

// token asks the request's token source for the next request's token.
// False means nothing is to be sent: the attack stopped, or the source
// failed and the request is recorded as failed.
func (w *worker) token(intended int64) (string, bool) {
	src := w.at.r.Token
	if src == nil {
		return "", true
	}
	t, err := src.Token(w.at.ctx)
	if err != nil {
		if w.at.ctx.Err() != nil {
			w.at.interrupted.Store(true) // not a failure: we stopped
			return "", false
		}
		// Due and failed before reaching the target, like a refused
		// connection: a failed request, not an unsent one.
		end := now()
		w.record(intended, end, end, 0, &tokenError{err})
		return "", false
	}
	return t, true
}

// record counts one request. Latency is recorded for answered requests only
// (any HTTP status): a refused connection's microseconds would flatter the
// percentiles; failures are counted by class instead.
func (w *worker) record(intended, sent, end int64, status int, err error) {
	open := w.at.open
	if !open {
		intended = sent
	}
	status, ans := splitAnswer(status)
	ok := err == nil && status < 400
	c, u := end-intended, end-sent
	class := ""
	if err != nil {
		class = classify(err)
	}

	w.mu.Lock()
	iv := w.cur
	if open {
		iv.lag.RecordValue(micros(sent - intended))
	}
	if err == nil {
		iv.hist.RecordValue(micros(c))
		if open {
			iv.uhist.RecordValue(micros(u))
		}
	}
	iv.n++
	if !ok {
		iv.errs++
		iv.fails[failIndex(class, status)]++
		w.failed++
	}
	if status == 401 || status == 403 {
		iv.auth++
	}
	w.done++
	w.mu.Unlock()

	w.tot.add(open, intended, sent, end, status, err, class)
	if ans != answerNone && err == nil {
		w.tot.answers[ans]++
	}
	if w.stages != nil {
		w.stages[w.stage].add(intended, sent, end, status, err, class)
	}
}

// micros converts a latency to the histograms' unit, clamped to their range.
func micros(ns int64) int64 {
	return min(max((ns+500)/1000, 0), histMax)
}

// waitUntil sleeps until engine time t; false if the attack was cancelled.
// Long waits use a timer (cancellable); the last two milliseconds use the
// fineTimer for precision. Neither holds a thread.
func (w *worker) waitUntil(t int64) bool {
	const coarse, margin = 2 * time.Millisecond, 1500 * time.Microsecond
	d := t - now()
	if d > int64(coarse) {
		if w.timer == nil {
			w.timer = time.NewTimer(time.Duration(d) - margin)
		} else {
			w.timer.Reset(time.Duration(d) - margin)
		}
		select {
		case <-w.timer.C:
		case <-w.at.done:
			return false
		}
		d = t - now()
	}
	if d > 0 {
		if w.fine == nil {
			w.fine = newFineTimer()
		}
		w.fine.sleep(d)
	}
	return true
}
