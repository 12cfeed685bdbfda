package load

import (
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// stageAcc is one worker's figures of one stage, kept apart from its
// totals because a stage is chosen by intended send time, not by the
// second a request completed.
type stageAcc struct {
	tot         totals
	firstSend   int64
	hist, uhist *hdr.PackedHistogram // corrected and uncorrected, µs
}

func newStageAccs(n int) []stageAcc {
	out := make([]stageAcc, n)
	for i := range out {
		out[i] = stageAcc{tot: newTotals(), hist: hdr.NewPacked(histMin, histMax, histDigits), uhist: hdr.NewPacked(histMin, histMax, histDigits)}
	}
	return out
}

func (s *stageAcc) add(intended, sent, end int64, status int, err error, class string) {
	s.tot.add(true, intended, sent, end, status, err, class)
	if s.tot.sent == 1 || sent < s.firstSend {
		s.firstSend = sent
	}
	if err == nil {
		s.hist.RecordValue(micros(end - intended))
		s.uhist.RecordValue(micros(end - sent))
	}
}

// stageMetrics is one stage of a finished attack: the workers' figures
// merged exactly.
type stageMetrics struct {
	index       int
	tot         totals
	firstSend   int64
	hist, uhist *hdr.Histogram
	scheduled   int64
	start, end  time.Time
}

// stageMetrics merges the workers' figures of every stage. A stage's
// window is its place on the schedule; in an interrupted attack it ends
// where the attack did (an empty window there for a stage not reached).
func (at *attack) stageMetrics(end int64, partial bool) []*stageMetrics {
	if at.sched == nil {
		return nil
	}
	out := make([]*stageMetrics, len(at.sched.stages))
	for i, st := range at.sched.stages {
		a, b := at.start+st.start, at.start+st.start+st.dur
		if partial {
			a, b = min(a, end), min(b, end)
		}
		sm := &stageMetrics{
			index: i, tot: newTotals(), scheduled: at.sched.stageScheduled(i),
			hist: hdr.New(histMin, histMax, histDigits), uhist: hdr.New(histMin, histMax, histDigits),
			start: wall(a).Round(0), end: wall(max(a, b)).Round(0),
		}
		for _, w := range at.workers {
			acc := &w.stages[i]
			if acc.tot.sent > 0 && (sm.tot.sent == 0 || acc.firstSend < sm.firstSend) {
				sm.firstSend = acc.firstSend
			}
			sm.tot.merge(&acc.tot)
			acc.hist.MergeInto(sm.hist)
			acc.uhist.MergeInto(sm.uhist)
		}
		out[i] = sm
	}
	return out
}

// result is the stage's entry in results.Result.Stages; partial says the
// attack was cut short, so the requests it never reached are not unsent.
func (sm *stageMetrics) result(m *Metrics, partial bool) results.Stage {
	st := m.spec.Stages[sm.index]
	t := &sm.tot
	r := results.Stage{
		Stage: sm.index + 1, Spec: st.String(), FromRPS: st.From, ToRPS: st.To, TargetRPS: st.Mean(),
		Start: sm.start, End: sm.end, DurationS: sm.end.Sub(sm.start).Seconds(),
		Scheduled: sm.scheduled, Requests: t.requests, Successes: t.successes, LateSends: t.late,
		Latency: latency(sm.hist, t.lat), LatencyUncorrected: latency(sm.uhist, t.ulat),
		Status: map[string]int64{}, Errors: map[string]int64{},
	}
	if t.requests > 0 {
		r.SuccessRate = float64(t.successes) / float64(t.requests)
	}
	if t.sent >= 2 && t.lastSend > sm.firstSend {
		r.AchievedRPS = finite(float64(t.sent-1) / (float64(t.lastSend-sm.firstSend) / 1e9))
	}
	if !partial {
		r.Unsent = max(sm.scheduled-t.sent, 0)
	}
	for _, c := range t.status {
		r.Status[strconv.Itoa(c.code)] = c.n
	}
	for k, v := range t.errors {
		r.Errors[k] = v
	}
	return r
}

// StageHistograms are stage i's corrected and uncorrected latency
// histograms (µs), for merging pods' stages exactly; nil past the stages.
func (m *Metrics) StageHistograms(i int) (corrected, uncorrected *hdr.Histogram) {
	if i < 0 || i >= len(m.stages) {
		return nil, nil
	}
	return m.stages[i].hist, m.stages[i].uhist
}
