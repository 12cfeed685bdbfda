package pods

import (
	"fmt"
	"math"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// second is the merged timeline's one wall-clock second.
type second struct {
	h                    *hdr.Histogram
	n, errs, auth        int64
	from, to             time.Time
	reporting, completed int // pods with an interval here: any, completed ones
}

// merge adds the completed pods' seconds by wall-clock second and their
// results exactly: histograms merged, counts summed, percentiles read
// from the merged histograms. A pod that did not deliver its result is
// kept out of the figures and in the per-pod table, and the phase is
// partial.
func (e *Executor) merge(p Phase, ph runner.Phase, got []*podPhase, aborted bool) (*runner.Measured, error) {
	secs := map[int]*second{}
	total := load.NewHistogram()
	var utotal, lag *hdr.Histogram
	var rs []results.Result
	var answered []int64
	var ends []*Line
	pe := &results.PodExecution{Asked: e.o.Pods, Start: p.Start}
	partial := aborted
	for i, pp := range got {
		st, ok := e.podRow(i, p, pp, aborted)
		count := addSeconds(secs, p.Start, pp, ok, total)
		if ok {
			rs, answered = append(rs, *pp.end.Result), append(answered, count)
			ends = append(ends, pp.end)
			pe.Completed++
			partial = partial || pp.end.Partial
			utotal, lag = mergeEncoded(utotal, pp.end.Uncorrected), mergeEncoded(lag, pp.end.Lag)
		} else {
			partial = true
			if st.State != results.PodFailed || st.Requests == 0 {
				st.Requests = count
			}
			if n := len(pp.intervals); n > 0 && st.Seconds == 0 {
				st.Seconds = pp.intervals[n-1].to.Sub(pp.intervals[0].from).Seconds()
			}
		}
		pe.Pods = append(pe.Pods, st)
	}
	res := mergeResults(rs, answered, total, utotal)
	res.Stages = mergeStages(ends)
	res.Model = ph.Spec.Model
	res.SendLag = sendLag(lag, rs)
	if ph.Spec.Rate > 0 {
		res.TargetRPS = ph.Spec.Rate
	}
	if len(ph.Spec.Stages) > 0 {
		res.TargetRPS = ph.Spec.Stages.Mean()
	}
	series, keys := timeline(secs)
	pe.StartSpreadMs = spread(pe.Pods)
	pe.Coverage = results.Coverage{Pods: pe.Completed, Requests: res.Requests, Seconds: covered(secs, keys, e.o.Pods, pe.Completed, res.DurationS)}
	res.Pods = pe
	m := &runner.Measured{Result: res, Series: series, Partial: partial}
	if total.TotalCount() > 0 {
		m.Histogram = total
	}
	if res.Unsent != nil {
		m.Unsent = *res.Unsent
	}
	if ph.HistogramLog != nil {
		m.LogErr = writeLog(ph, secs, keys)
	}
	e.report(pe)
	return m, nil
}

// podRow is pod i's table row; ok says it delivered its whole result. A
// pod stopped early without the run being interrupted (evicted, deleted:
// SIGTERM) reports what it measured, but as a failed pod, kept out of the
// merged figures like one killed outright.
func (e *Executor) podRow(i int, p Phase, pp *podPhase, aborted bool) (results.PodStat, bool) {
	s := e.pods[i]
	st := results.PodStat{Index: i, Name: s.name, Node: s.node, State: results.PodNotStarted, Reason: pp.reason}
	start := pp.start
	ok := pp.end != nil && pp.end.Result != nil
	if ok {
		r := pp.end.Result
		st.Requests, st.Errors, st.IOPath = r.Requests, r.Requests-r.Successes, r.IOPath
	}
	if ok && pp.end.Partial && !aborted {
		r := pp.end.Result
		st.State, st.Seconds = results.PodFailed, r.DurationS
		st.StartSkewMs = float64(r.Start.Sub(p.Start.Add(p.Shares[i].Offset))) / 1e6
		st.Reason = fmt.Sprintf("stopped after %.1f s of its share", r.DurationS)
		return st, false
	}
	if ok {
		r := pp.end.Result
		st.State, st.Reason = results.PodCompleted, ""
		st.Unsent = pp.end.Unsent
		st.Seconds, start = r.DurationS, r.Start
		if c := pp.end.CPU; c != nil {
			st.CPUSeconds, st.CPULimit, st.Periods, st.ThrottledPeriods = c.Seconds, c.Limit, c.Periods, c.ThrottledPeriods
		}
	} else if !pp.start.IsZero() {
		st.State = results.PodFailed
	}
	if !start.IsZero() {
		st.StartSkewMs = float64(start.Sub(p.Start.Add(p.Shares[i].Offset))) / 1e6
	}
	return st, ok
}

// addSeconds adds pod pp's intervals to the seconds (its counts only when
// it completed) and returns how many answered requests they hold.
func addSeconds(secs map[int]*second, start time.Time, pp *podPhase, completed bool, total *hdr.Histogram) int64 {
	var n int64
	for k, iv := range pp.intervals {
		i := max(int(math.Round(iv.from.Sub(start).Seconds())), 0)
		s := secs[i]
		if s == nil {
			s = &second{h: load.NewHistogram(), from: iv.from, to: iv.to}
			secs[i] = s
		}
		s.reporting++
		n += iv.h.TotalCount()
		if !completed {
			continue
		}
		s.completed++
		s.h.Merge(iv.h)
		total.Merge(iv.h)
		pt := results.Point{Requests: iv.h.TotalCount()}
		if k < len(pp.end.Series) {
			pt = pp.end.Series[k]
		}
		s.n, s.errs, s.auth = s.n+pt.Requests, s.errs+pt.Errors, s.auth+pt.AuthErrors
		if iv.from.Before(s.from) {
			s.from = iv.from
		}
		if iv.to.After(s.to) {
			s.to = iv.to
		}
	}
	return n
}

func timeline(secs map[int]*second) ([]results.Point, []int) {
	keys := make([]int, 0, len(secs))
	for k := range secs {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var pts []results.Point
	for _, k := range keys {
		s := secs[k]
		if s.completed == 0 {
			continue
		}
		pts = append(pts, results.Point{T: float64(k), Requests: s.n, Errors: s.errs, AuthErrors: s.auth,
			P50: float64(s.h.ValueAtQuantile(50)) / 1e3, P99: float64(s.h.ValueAtQuantile(99)) / 1e3})
	}
	return pts, keys
}

// covered is how many seconds every asked pod was reporting: the whole
// phase when all completed.
func covered(secs map[int]*second, keys []int, asked, completed int, dur float64) float64 {
	if completed == asked {
		return dur
	}
	n := 0
	for _, k := range keys {
		if secs[k].reporting == asked {
			n++
		}
	}
	return float64(n)
}

func spread(ps []results.PodStat) float64 {
	lo, hi, any := math.Inf(1), math.Inf(-1), false
	for _, p := range ps {
		if p.State == results.PodNotStarted {
			continue
		}
		lo, hi, any = math.Min(lo, p.StartSkewMs), math.Max(hi, p.StartSkewMs), true
	}
	if !any {
		return 0
	}
	return hi - lo
}

// writeLog writes the merged seconds as the phase's .hlog.
func writeLog(ph runner.Phase, secs map[int]*second, keys []int) error {
	var l *load.HistogramLog
	for _, k := range keys {
		s := secs[k]
		if s.completed == 0 {
			continue
		}
		if l == nil {
			l = load.NewHistogramLog(ph.HistogramLog, s.from)
		}
		l.Interval(s.h, s.from, s.to)
	}
	if l == nil {
		l = load.NewHistogramLog(ph.HistogramLog, time.Now())
	}
	return l.Err()
}

// report prints the per-pod table.
func (e *Executor) report(pe *results.PodExecution) {
	fmt.Fprintf(e.o.Log, "pods: %d of %d completed, %d requests, start spread %.1f ms\n",
		pe.Completed, pe.Asked, pe.Coverage.Requests, pe.StartSpreadMs)
	for _, p := range pe.Pods {
		line := fmt.Sprintf("  pod %d %s on %s: %s, %d requests, %d errors, start skew %+.1f ms",
			p.Index, p.Name, p.Node, p.State, p.Requests, p.Errors, p.StartSkewMs)
		if p.IOPath != "" {
			line += ", io " + p.IOPath
		}
		if p.CPUSeconds > 0 {
			line += fmt.Sprintf(", cpu %.2f s", p.CPUSeconds)
		}
		if p.Periods > 0 {
			line += fmt.Sprintf(", throttled %d/%d periods", p.ThrottledPeriods, p.Periods)
		}
		if p.Reason != "" {
			line += " (" + p.Reason + ")"
		}
		fmt.Fprintln(e.o.Log, line)
	}
}

// mergeEncoded adds an encoded histogram to into (created on need).
func mergeEncoded(into *hdr.Histogram, enc string) *hdr.Histogram {
	h, err := DecodeHist(enc)
	if err != nil || h == nil {
		return into
	}
	if into == nil {
		into = load.NewHistogram()
	}
	into.Merge(h)
	return into
}

// sendLag reads the merged send lag (µs) as the engine does, clamped to
// the largest lag a pod measured.
func sendLag(h *hdr.Histogram, rs []results.Result) *results.Lag {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	var hi float64
	for _, r := range rs {
		if r.SendLag != nil {
			hi = math.Max(hi, r.SendLag.MaxMs)
		}
	}
	return &results.Lag{P50Ms: math.Min(float64(h.ValueAtQuantile(50))/1e3, hi),
		P99Ms: math.Min(float64(h.ValueAtQuantile(99))/1e3, hi), MaxMs: hi}
}
