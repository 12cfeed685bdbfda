package pods

import (
	"context"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// interval is one pod's second.
type interval struct {
	from, to time.Time
	h        *hdr.Histogram
}

// podPhase is what one pod reported of one phase.
type podPhase struct {
	start     time.Time
	intervals []interval
	end       *Line
	reason    string
}

// Execute runs one phase in every live pod from a common start and
// merges what they report.
func (e *Executor) Execute(ctx context.Context, ph runner.Phase) (*runner.Measured, error) {
	shares, err := Split(ph.Spec, e.o.Pods)
	if err != nil {
		return nil, err
	}
	e.seq++
	p := Phase{Seq: e.seq, Kind: PhaseLoad, Target: ph.Target, Shares: shares, Start: time.Now().Add(e.o.StartDelay).UTC()}
	if err := e.publish(ctx, p); err != nil {
		return nil, err
	}
	got, aborted := e.collect(ctx, p, ph)
	return e.merge(p, ph, got, aborted)
}

// collect gathers each live pod's lines for phase p until every one has
// ended it or stopped. On ctx's end it asks the pods to abort and waits
// a little for what they measured.
func (e *Executor) collect(ctx context.Context, p Phase, ph runner.Phase) ([]*podPhase, bool) {
	got := make([]*podPhase, e.o.Pods)
	pending := 0
	for i, s := range e.pods {
		got[i] = &podPhase{}
		if s.live() {
			pending++
		} else {
			got[i].reason = s.reason
		}
	}
	done, aborted := ctx.Done(), false
	var giveUp <-chan time.Time
	for pending > 0 {
		select {
		case ev := <-e.events:
			pending -= e.record(ev, p.Seq, got[ev.idx], ph)
		case <-done:
			done, aborted = nil, true
			actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			p.Abort = true
			e.publish(actx, p)
			cancel()
			giveUp = time.After(15 * time.Second)
		case <-giveUp:
			for i, s := range e.pods {
				if s.live() && got[i].end == nil {
					got[i].reason = "no result after the interruption"
				}
			}
			return got, aborted
		}
	}
	return got, aborted
}

// record applies one event to phase seq; it returns 1 when the event
// ends the pod's part (a result, an error, or the pod gone).
func (e *Executor) record(ev event, seq int, pp *podPhase, ph runner.Phase) int {
	s := e.pods[ev.idx]
	wasLive := s.live()
	e.apply(ev)
	if ev.gone || ev.text != "" || ev.line.Seq != seq {
		if ev.gone && wasLive && pp.end == nil {
			pp.reason = s.reason
			return 1
		}
		return 0
	}
	l := ev.line
	switch l.Kind {
	case KindStart:
		pp.start = l.Time
	case KindInterval:
		h, err := DecodeHist(l.Hist)
		if err != nil || h == nil {
			return 0
		}
		pp.intervals = append(pp.intervals, interval{l.Time, l.End, h})
		if ph.Progress != nil {
			ph.Progress.Done.Add(h.TotalCount())
		}
		if ph.Intervals != nil {
			ph.Intervals(load.Interval{Pod: ev.idx + 1, Start: l.Time, End: l.End, Requests: h.TotalCount(), Corrected: h})
		}
	case KindEnd:
		pp.end = &l
		return 1
	case KindError:
		pp.reason = l.Message
		return 1
	}
	return 0
}

// Probe has one live pod send one request to target i.
func (e *Executor) Probe(ctx context.Context, i int) results.TargetFingerprint {
	fp := results.TargetFingerprint{}
	prober := -1
	for j, s := range e.pods {
		if s.live() {
			prober = j
			break
		}
	}
	if prober < 0 {
		fp.Error = "no live pod to probe from"
		return fp
	}
	e.seq++
	p := Phase{Seq: e.seq, Kind: PhaseProbe, Target: i, Prober: prober}
	if err := e.publish(ctx, p); err != nil {
		fp.Error = err.Error()
		return fp
	}
	timeout := time.After(time.Minute)
	for {
		select {
		case ev := <-e.events:
			e.apply(ev)
			if ev.idx == prober && ev.line.Seq == p.Seq && ev.line.Kind == KindProbe && ev.line.Probe != nil {
				return *ev.line.Probe
			}
			if ev.idx == prober && (ev.gone || ev.line.Seq == p.Seq && ev.line.Kind == KindError) {
				fp.Error = "the probing pod stopped: " + e.pods[prober].reason
				return fp
			}
		case <-ctx.Done():
			fp.Error = ctx.Err().Error()
			return fp
		case <-timeout:
			fp.Error = fmt.Sprintf("pod %d sent no probe result within a minute", prober)
			return fp
		}
	}
}
