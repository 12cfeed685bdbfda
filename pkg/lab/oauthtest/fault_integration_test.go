//go:build integration

package oauthtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/stacks"
)

// begun is a runner.Watcher that says when the load's first recorded
// phase begins, so that a fault is set at a known time into it.
type begun struct {
	once sync.Once
	ch   chan struct{}
}

func (b *begun) Begin(runner.PhaseStart)    { b.once.Do(func() { close(b.ch) }) }
func (b *begun) Interval(load.Interval)     {}
func (b *begun) End(*results.Result)        {}
func newBegun() *begun                      { return &begun{ch: make(chan struct{})} }
func (b *begun) after(d time.Duration) bool { <-b.ch; time.Sleep(d); return true }

// faultRun runs an open loop of rate req/s for d against 3x-oauth with
// pool tokens [from, to) (distinct: every request a first use for the
// sidecar too), wired as the CLI wires a run against a lab, while fault
// acts on the lab once the load has begun.
func faultRun(t *testing.T, from, to int, d time.Duration, rate float64, fault func(context.Context, *lab.Lab, *begun)) *runner.Outcome {
	t.Helper()
	p := labPlan(t, stacks.Target3xOAuth)
	p.Targets[0].Token = &auth.Spec{Pool: &auth.Pool{File: poolSlice(t, from, to)}}
	// No warm-up: it would send the pool's first tokens again and the
	// sidecar would answer them from its cache.
	p.Load = plan.Load{Duration: plan.Duration(d), Rate: rate, Concurrency: 64, Iterations: 1}
	obs, err := sampling.Observe(t.Context(), p, sampling.Options{LabDir: labDir, Platforms: []lab.Platform{processes.Platform{}}})
	if err != nil {
		t.Fatal(err)
	}
	if obs.Faults == nil {
		t.Fatal("Observe gave no fault log for the lab")
	}
	l := lab.Open(labDir, processes.Platform{})
	t.Cleanup(func() { _, _ = l.ClearFault(context.Background(), results.LinkAPIServer) })
	w := newBegun()
	done := make(chan struct{})
	go func() { defer close(done); fault(t.Context(), l, w) }()
	out, err := runner.Run(t.Context(), runner.Options{Plan: p, Out: t.TempDir(), Monitor: obs.Monitor, Lab: obs.Lab, Reviews: obs.Reviews,
		Gateways: obs.Gateways, Faults: obs.Faults, Watch: w})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Run.Findings {
		t.Logf("finding %s: %s", f.Kind, f.Evidence)
	}
	for _, s := range out.Timeline.Series {
		for _, pt := range s.Points {
			t.Logf("second %v: %d requests, %d errors, P50 %.1f ms", pt.T, pt.Requests, pt.Errors, pt.P50)
		}
	}
	return out
}

func finding(t *testing.T, run *results.Run, kind string) results.Finding {
	t.Helper()
	for _, f := range run.Findings {
		if f.Kind == kind {
			return f
		}
	}
	t.Fatalf("no %s finding; faults %+v", kind, run.Faults)
	return results.Finding{}
}

// An API server 200 ms further away raises every request's P50 by its
// reviews × 200 ms: kube-auth-proxy's TokenReview and the sidecar's
// TokenReview and SAR, each a round trip through the delayed link.
func TestAPIServerDelayFinding(t *testing.T) {
	const delay = 200 * time.Millisecond
	out := faultRun(t, 3000, 3500, 9*time.Second, 40, func(ctx context.Context, l *lab.Lab, w *begun) {
		w.after(3 * time.Second)
		if _, err := l.SetFault(ctx, lab.Fault{Link: results.LinkAPIServer, Delay: delay}); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(4 * time.Second)
		if _, err := l.ClearFault(ctx, results.LinkAPIServer); err != nil {
			t.Error(err)
		}
	})
	if n := len(out.Run.Faults); n != 2 {
		t.Fatalf("run.json records %d fault events, want the set and the clear: %+v", n, out.Run.Faults)
	}
	f := finding(t, out.Run, analyze.KindFaultSlowAPIServer)
	if f.Component != stacks.APIServer {
		t.Errorf("the finding names %q, want the API server %q", f.Component, stacks.APIServer)
	}
	expected, rise := f.Values["expected_ms"], f.Values["observed_rise_ms"]
	reviews := out.Run.Results[0].APIServer
	perRequest := reviews.TokenReviewsPerRequest + reviews.SARsPerRequest
	if want := perRequest * float64(delay.Milliseconds()); expected < 0.99*want || expected > 1.01*want {
		t.Errorf("expected rise %v ms, want reviews per request %v × %v", expected, perRequest, delay)
	}
	// Noise: the seconds at the fault's edges are left out; the rest of a
	// request's time is a few ms on this host.
	if expected < float64(delay.Milliseconds()) || rise < 0.9*expected {
		t.Errorf("P50 rose %v ms, want at least the reviews on the path × %v = %v ms (within 10%%)", rise, delay, expected)
	}
}

// The API server down for 5 s inside a run: requests fail only while it is
// down (and while the proxies notice it is back), and the finding gives
// the recovery time.
func TestAPIServerDownFinding(t *testing.T) {
	const downFor = 5 * time.Second
	out := faultRun(t, 3500, 4000, 11*time.Second, 40, func(ctx context.Context, l *lab.Lab, w *begun) {
		w.after(3 * time.Second)
		if _, err := l.HoldFault(ctx, lab.Fault{Link: results.LinkAPIServer, Down: true, For: downFor}, nil); err != nil {
			t.Error(err)
		}
	})
	spans := analyze.FaultSpans(out.Run)
	if len(spans) != 1 || spans[0].Open {
		t.Fatalf("fault spans %+v, want one, cleared within the run", spans)
	}
	sp := spans[0]
	f := finding(t, out.Run, analyze.KindFaultDown)
	if f.Values["failed_in_fault"] == 0 || f.Severity != analyze.SeverityCritical {
		t.Errorf("finding %s with %v failed: want the path to fail closed", f.Severity, f.Values["failed_in_fault"])
	}
	rec, ok := f.Values["recovery_s"]
	if !ok {
		t.Fatalf("no recovery time: %s", f.Evidence)
	}
	// Errors only inside the window, plus the time to detect it is back:
	// the recovery the finding reports.
	r := out.Run.Results[0]
	for _, s := range out.Timeline.Series {
		for _, p := range s.Points {
			at := r.Start.Add(time.Duration(p.T * float64(time.Second)))
			if p.Errors > 0 && (at.Add(time.Second).Before(sp.From) || at.After(sp.To.Add(time.Duration((rec+1)*float64(time.Second))))) {
				t.Errorf("second %v (%v from the fault's start) has %d errors outside the fault window %v..%v + recovery %v s",
					p.T, at.Sub(sp.From), p.Errors, sp.From, sp.To, rec)
			}
		}
	}
}
