package load

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/authbench/authbench/pkg/results"
)

// progressEvery is how often Progress is refreshed.
const progressEvery = 100 * time.Millisecond

// collector swaps the workers' interval histograms out once a second and
// merges them: into one dense interval histogram (a timeline point and an
// .hlog interval) and from there into the attack's total. Dense histograms
// exist once per attack, never per worker.
type collector struct {
	at       *attack
	ivl      *hdr.Histogram // the current second, corrected
	total    *hdr.Histogram // corrected
	utotal   *hdr.Histogram // uncorrected (open model)
	uivl     *hdr.Histogram // the current second, uncorrected (open, watched)
	lag      *hdr.Histogram // send lag (open model)
	series   []results.Point
	idx      int   // seconds flushed
	last     int64 // engine time of the last swap
	hlog     *hlogWriter
	progress *Progress
	watch    func(Interval)
	stop     chan int64
	stopped  chan struct{}
}

func newCollector(at *attack, cfg attackConfig) *collector {
	c := &collector{
		at:       at,
		ivl:      hdr.New(histMin, histMax, histDigits),
		total:    hdr.New(histMin, histMax, histDigits),
		last:     at.start,
		progress: cfg.progress,
		watch:    cfg.intervals,
		stop:     make(chan int64),
		stopped:  make(chan struct{}),
	}
	if at.open {
		c.utotal = hdr.New(histMin, histMax, histDigits)
		c.lag = hdr.New(histMin, histMax, histDigits)
		if c.watch != nil {
			c.uivl = hdr.New(histMin, histMax, histDigits)
		}
	}
	if cfg.hlog != nil {
		c.hlog = newHlogWriter(cfg.hlog, wall(at.start))
	}
	return c
}

func (c *collector) run() {
	defer close(c.stopped)
	var tick <-chan time.Time
	if c.progress != nil {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		tick = t.C
	}
	sec := time.NewTimer(c.untilNextSecond())
	defer sec.Stop()
	for {
		select {
		case end := <-c.stop:
			c.flush(end, true)
			c.updateProgress()
			return
		case <-tick:
			c.updateProgress()
		case <-sec.C:
			c.flush(now(), false)
			sec.Reset(c.untilNextSecond())
		}
	}
}

func (c *collector) untilNextSecond() time.Duration {
	return max(time.Duration(c.at.start+int64(c.idx+1)*int64(time.Second)-now()), 0)
}

// finish flushes the last (partial) second once every worker has stopped.
func (c *collector) finish(end int64) {
	c.stop <- end
	<-c.stopped
}

// flush swaps every worker's interval out and adds one timeline point.
func (c *collector) flush(end int64, final bool) {
	var n, errs, auth int64
	var fails [numFails]int64
	for _, w := range c.at.workers {
		w.mu.Lock()
		iv := w.cur
		w.cur = w.spare
		w.mu.Unlock()
		w.spare = iv
		iv.hist.MergeInto(c.ivl)
		if iv.uhist != nil {
			iv.uhist.MergeInto(c.utotal)
			iv.lag.MergeInto(c.lag)
			if c.uivl != nil {
				iv.uhist.MergeInto(c.uivl)
			}
		}
		n, errs, auth = n+iv.n, errs+iv.errs, auth+iv.auth
		for i, f := range iv.fails {
			fails[i] += f
		}
		iv.reset()
	}
	if final && n == 0 && end-c.last < int64(time.Millisecond) {
		return // the attack ended on a second boundary
	}
	c.total.Merge(c.ivl)
	c.series = append(c.series, results.Point{
		T: float64(c.idx), Requests: n, Errors: errs, AuthErrors: auth,
		P50: msFromMicros(c.ivl.ValueAtQuantile(50)), P99: msFromMicros(c.ivl.ValueAtQuantile(99)),
	})
	if c.hlog != nil {
		c.hlog.interval(c.ivl, wall(c.last), wall(end))
	}
	c.hand(end, n, errs, &fails)
	c.ivl.Reset()
	c.idx++
	c.last = end
}

// hand gives the closed second to the watcher, if any.
func (c *collector) hand(end, n, errs int64, fails *[numFails]int64) {
	if c.watch == nil {
		return
	}
	iv := Interval{Start: wall(c.last), End: wall(end), Requests: n, Errors: errs,
		Classes: classCounts(fails), Corrected: c.ivl}
	if c.uivl != nil {
		iv.Uncorrected = c.uivl
	}
	c.watch(iv)
	if c.uivl != nil {
		c.uivl.Reset()
	}
}

func (c *collector) updateProgress() {
	if c.progress == nil {
		return
	}
	var done, failed int64
	for _, w := range c.at.workers {
		w.mu.Lock()
		done, failed = done+w.done, failed+w.failed
		w.mu.Unlock()
	}
	c.progress.Done.Store(done)
	c.progress.Errors.Store(failed)
}

func msFromMicros(us int64) float64 { return float64(us) / 1e3 }
