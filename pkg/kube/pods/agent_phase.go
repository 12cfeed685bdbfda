package pods

import (
	"context"
	"io"
	"os"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/redact"
)

// run executes one phase and reports it.
func (a *agent) run(ctx context.Context, ph Phase) {
	if ph.Target < 0 || ph.Target >= len(a.requests) {
		a.emit(Line{Kind: KindError, Seq: ph.Seq, Message: "no such target"})
		return
	}
	if ph.Kind == PhaseProbe {
		if a.index == ph.Prober {
			fp := a.attacker.Probe(ctx, a.requests[ph.Target])
			fp.Error = redact.Text(fp.Error)
			a.emit(Line{Kind: KindProbe, Seq: ph.Seq, Probe: &fp})
		}
		return
	}
	if a.index >= len(ph.Shares) {
		a.emit(Line{Kind: KindError, Seq: ph.Seq, Message: "no share for this pod"})
		return
	}
	a.load(ctx, ph, ph.Shares[a.index])
}

// load waits for the pod's start, sends its share and streams one
// interval histogram per second, then the final result.
func (a *agent) load(ctx context.Context, ph Phase, sh Share) {
	if !sleepUntil(ctx, ph.Start.Add(sh.Offset)) {
		a.emit(Line{Kind: KindEnd, Seq: ph.Seq, Partial: true})
		return
	}
	cpu0, cpuErr := ownCPU()
	pr, pw := io.Pipe()
	streamed := make(chan struct{})
	go func() { defer close(streamed); a.stream(pr, ph.Seq) }()
	a.emit(Line{Kind: KindStart, Seq: ph.Seq, Time: time.Now()})
	m := a.attacker.Attack(ctx, a.requests[ph.Target], sh.Spec, load.WithHistogramLog(pw))
	pw.Close()
	<-streamed
	res := m.Result()
	l := Line{Kind: KindEnd, Seq: ph.Seq, Result: &res, Series: m.Series(), Unsent: m.Unsent(), Partial: m.Partial()}
	l.Uncorrected, _ = EncodeHist(m.UncorrectedHistogram())
	l.Lag, _ = EncodeHist(m.SendLagHistogram())
	l.Stages = stageHists(m, len(res.Stages))
	for k, v := range res.ErrorSamples {
		res.ErrorSamples[k] = redact.Text(v)
	}
	if cpu1, err := ownCPU(); err == nil && cpuErr == nil {
		l.CPU = &CPU{Seconds: (cpu1.CPUUsage - cpu0.CPUUsage).Seconds(), Limit: cpu1.CPULimit,
			Periods: cpu1.Periods - cpu0.Periods, ThrottledPeriods: cpu1.ThrottledPeriods - cpu0.ThrottledPeriods}
	}
	a.emit(l)
}

// stream turns the engine's histogram log into interval lines as each
// second is flushed.
func (a *agent) stream(r *io.PipeReader, seq int) {
	defer io.Copy(io.Discard, r) // never block the engine
	lr := hdr.NewHistogramLogReader(r)
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil || h == nil {
			return
		}
		enc, err := EncodeHist(h)
		if err != nil {
			continue
		}
		a.emit(Line{Kind: KindInterval, Seq: seq, Time: time.UnixMilli(h.StartTimeMs()).UTC(),
			End: time.UnixMilli(h.EndTimeMs()).UTC(), Hist: enc})
	}
}

func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

// ownCPU reads the container's own cgroup. In a container the cgroup
// file systems show the container's group at their root; elsewhere the
// process's group is found from /proc.
func ownCPU() (cgroup.Stats, error) {
	if g, err := cgroup.ForPID(os.Getpid()); err == nil {
		if s, err := g.Stats(); err == nil && s.CPUUsage > 0 {
			return s, nil
		}
	}
	g, err := cgroup.Open("/")
	if err != nil {
		return cgroup.Stats{}, err
	}
	return g.Stats()
}
