package live

import (
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// Histogram geometry: the engine's (1 µs to 1 hour, 3 digits), so that
// merging its seconds loses nothing.
const (
	histMin    = 1
	histMax    = int64(time.Hour / time.Microsecond)
	histDigits = 3
)

// second is one interval an engine (a pod) closed, kept for the window.
type second struct {
	pod              int
	start, end       time.Time
	requests, errors int64
	hist, uhist      *hdr.Histogram
}

// sums are latency histograms and counts that only grow.
type sums struct {
	hist, uhist      *hdr.Histogram
	requests, errors int64
	classes          map[string]int64
}

func newSums() *sums {
	return &sums{hist: newHist(), uhist: newHist(), classes: map[string]int64{}}
}

func (s *sums) add(iv load.Interval) {
	s.requests += iv.Requests
	s.errors += iv.Errors
	for k, v := range iv.Classes {
		s.classes[k] += v
	}
	s.hist.Merge(iv.Corrected)
	if iv.Uncorrected != nil {
		s.uhist.Merge(iv.Uncorrected)
	}
}

func newHist() *hdr.Histogram { return hdr.New(histMin, histMax, histDigits) }

// state is what the view has seen: the current phase, its window of
// seconds, and the run's totals. Guarded by View.mu.
type state struct {
	phase    *runner.PhaseStart
	secs     []*second
	free     []*hdr.Histogram // histograms of dropped seconds, reused
	phaseSum *sums            // this phase
	targets  map[string]*sums // per target, every phase so far
	ended    int              // phases over
	runReqs  int64            // requests of the phases over
	runErrs  int64
	lastComp []results.ComponentUsage // the last phase's, as recorded
}

func newState() *state { return &state{targets: map[string]*sums{}} }

func (s *state) begin(p runner.PhaseStart) {
	s.phase = &p
	s.drop(len(s.secs))
	s.phaseSum = newSums()
	if s.targets[p.Target] == nil {
		s.targets[p.Target] = newSums()
	}
}

func (s *state) interval(iv load.Interval, window time.Duration) {
	if s.phase == nil || iv.Corrected == nil {
		return
	}
	s.phaseSum.add(iv)
	s.targets[s.phase.Target].add(iv)
	sec := &second{pod: iv.Pod, start: iv.Start, end: iv.End, requests: iv.Requests, errors: iv.Errors,
		hist: s.hist(iv.Corrected)}
	if iv.Uncorrected != nil {
		sec.uhist = s.hist(iv.Uncorrected)
	}
	s.secs = append(s.secs, sec)
	s.prune(window)
}

// hist is a copy of h, in a reused histogram when one is free.
func (s *state) hist(h *hdr.Histogram) *hdr.Histogram {
	var c *hdr.Histogram
	if n := len(s.free); n > 0 {
		c, s.free = s.free[n-1], s.free[:n-1]
		c.Reset()
	} else {
		c = newHist()
	}
	c.Merge(h)
	return c
}

// prune drops the seconds that ended before the window of the latest.
func (s *state) prune(window time.Duration) {
	latest := s.secs[len(s.secs)-1].end
	for _, x := range s.secs {
		latest = maxTime(latest, x.end)
	}
	n := 0
	for n < len(s.secs) && !s.secs[n].end.After(latest.Add(-window)) {
		n++
	}
	s.drop(n)
}

// drop forgets the first n seconds, keeping their histograms for reuse.
func (s *state) drop(n int) {
	for _, x := range s.secs[:n] {
		s.free = append(s.free, x.hist)
		if x.uhist != nil {
			s.free = append(s.free, x.uhist)
		}
	}
	s.secs = append(s.secs[:0], s.secs[n:]...)
}

func (s *state) end(r *results.Result) {
	s.ended++
	if s.phaseSum != nil {
		s.runReqs += s.phaseSum.requests
		s.runErrs += s.phaseSum.errors
	}
	if r != nil && len(r.Components) > 0 {
		s.lastComp = r.Components
	}
	s.phase = nil
}

// podShares is each pod's rate over the window and its share of the total.
func podShares(secs []*second) []PodShare {
	reqs := map[int]int64{}
	var total int64
	for _, x := range secs {
		if x.pod > 0 {
			reqs[x.pod] += x.requests
			total += x.requests
		}
	}
	span := spanOf(secs).Seconds()
	out := make([]PodShare, 0, len(reqs))
	for pod, n := range reqs {
		p := PodShare{Pod: pod}
		if span > 0 {
			p.Rate = float64(n) / span
		}
		if total > 0 {
			p.Share = float64(n) / float64(total)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}

// spanOf is the time the seconds cover: from the earliest start to the
// latest end (pods report their seconds side by side).
func spanOf(secs []*second) time.Duration {
	if len(secs) == 0 {
		return 0
	}
	lo, hi := secs[0].start, secs[0].end
	for _, x := range secs {
		if x.start.Before(lo) {
			lo = x.start
		}
		hi = maxTime(hi, x.end)
	}
	return hi.Sub(lo)
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// isOpen says whether spec is an open loop (a target rate to reach): a
// positive rate selects it, as in the engine.
func isOpen(spec load.Spec) bool { return spec.Rate > 0 || len(spec.Stages) > 0 }
