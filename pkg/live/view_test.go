package live

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

var t0 = time.Unix(1_700_000_000, 0)

// hist records n latencies: 98% at base µs, 2% at ten times base.
func hist(n int64, base int64) *hdr.Histogram {
	h := newHist()
	slow := n / 50
	h.RecordValues(base, n-slow)
	h.RecordValues(10*base, slow)
	return h
}

// feed gives the view secs seconds of rate req/s from each of pods pods
// (pod 0: this process), a tenth of them failing with 401 (and, with
// refused, half of the failures refused).
func feed(v *View, secs int, rate int64, pods int, refused bool) {
	for s := range secs {
		for p := range max(pods, 1) {
			n := rate / int64(max(pods, 1)) * int64(p+1) * 2 / int64(max(pods, 1)+1)
			if pods == 0 {
				n = rate
			}
			iv := load.Interval{Pod: p + min(pods, 1), Start: t0.Add(time.Duration(s) * time.Second),
				End: t0.Add(time.Duration(s+1) * time.Second), Requests: n, Errors: n / 10,
				Corrected: hist(n, 2000+int64(s)*100), Uncorrected: hist(n, 1000)}
			if pods == 0 {
				iv.Classes = map[string]int64{"HTTP 401/403": n / 10}
				if refused {
					iv.Classes = map[string]int64{"HTTP 401/403": n / 20, load.ClassRefused: n / 10 - n/20}
				}
			}
			v.Interval(iv)
		}
	}
}

func components() []results.ComponentUsage {
	return []results.ComponentUsage{
		{Name: "haproxy", CPUMean: 0.31, CPULimit: 1, ThrottledRatio: 0.012, MemMean: 40 << 20},
		{Name: "kube-rbac-proxy-playing-oauth-proxy", CPUMean: 0.48, CPULimit: 0.5, ThrottledRatio: 0.31, MemMean: 60 << 20},
		{Name: "http-echo", CPUMean: 0.12, MemMean: 20 << 20},
		{Name: "authbench", CPUMean: 0.27, MemMean: 30 << 20},
	}
}

func newTestView(o Options) *View {
	o.Now = func() time.Time { return t0.Add(6500 * time.Millisecond) }
	return New(nil, o)
}

func TestViewFigures(t *testing.T) {
	v := newTestView(Options{Title: "run", Phases: 2})
	v.Begin(runner.PhaseStart{Target: "echo", Iteration: 1, Spec: load.Spec{Model: plan.Open, Rate: 300, Duration: 30 * time.Second}, Time: t0})
	feed(v, 7, 300, 0, false)
	s := v.Snapshot()
	if s.Rate != 300 || s.Target != 300 || s.Window != DefaultWindow {
		t.Errorf("rate %v of %v over %v, want 300 of 300 over 5s", s.Rate, s.Target, s.Window)
	}
	if s.RecentRequests != 1500 || s.Done != 2100 || s.Errors != 210 || s.RecentErrors != 150 {
		t.Errorf("requests %d recent, %d so far; errors %d, %d", s.RecentRequests, s.Done, s.RecentErrors, s.Errors)
	}
	// Second k's latencies are 2+0.1k ms, 2% of them ten times that. Over
	// the last five seconds (k = 2..6) the slowest 1% are half the slow
	// ones: those of k = 6, 5 and some of 4, so P99 is 24 ms; over seven
	// (k = 0..6), 23 ms; the median of seven is second 3's 2.3 ms.
	if math.Abs(s.Recent.P99-24) > 0.1 || math.Abs(s.SoFar.P99-23) > 0.1 || math.Abs(s.SoFar.P50-2.3) > 0.01 {
		t.Errorf("P99 recent %v so far %v, P50 so far %v", s.Recent.P99, s.SoFar.P99, s.SoFar.P50)
	}
	if !s.Recent.HasU || math.Abs(s.Recent.UP50-1) > 0.01 {
		t.Errorf("uncorrected %+v, want P50 1 ms", s.Recent)
	}
	if len(s.Classes) != 1 || s.Classes[0] != (Count{"HTTP 401/403", 210}) {
		t.Errorf("classes %v", s.Classes)
	}
	v.End(&results.Result{Components: components()})
	s = v.Snapshot()
	if s.Phase != "" || s.PhasesDone != 1 || s.RunRequests != 2100 || s.ComponentsNote == "" || len(s.Components) != 4 {
		t.Errorf("between phases: %+v", s)
	}
}

func TestViewPods(t *testing.T) {
	v := newTestView(Options{Title: "run"})
	v.Begin(runner.PhaseStart{Target: "echo", Iteration: 1, Spec: load.Spec{Rate: 300, Duration: 30 * time.Second}, Time: t0})
	feed(v, 7, 300, 2, false)
	s := v.Snapshot()
	if len(s.Pods) != 2 || s.Pods[0].Pod != 1 || math.Abs(s.Pods[0].Share-1.0/3) > 1e-9 || math.Abs(s.Pods[1].Rate-200) > 1e-9 {
		t.Errorf("pods %+v, want pod 1 a third (100 req/s), pod 2 two thirds (200 req/s)", s.Pods)
	}
	if s.Rate != 300 {
		t.Errorf("rate %v, want the pods' sum 300", s.Rate)
	}
}

func TestViewPerPhase(t *testing.T) {
	v := newTestView(Options{Title: "capacity", PhaseWord: "step", PerPhase: true})
	for step, rate := range []int64{100, 400} {
		v.Begin(runner.PhaseStart{Target: "echo", Iteration: step + 1, Spec: load.Spec{Rate: float64(rate), Duration: 7 * time.Second}, Time: t0})
		feed(v, 7, rate, 0, false)
		v.End(&results.Result{})
	}
	v.Begin(runner.PhaseStart{Target: "echo", Iteration: 3, Spec: load.Spec{Rate: 800, Duration: 7 * time.Second}, Time: t0})
	s := v.Snapshot()
	if s.SoFar.N != 0 || s.SoFarLabel != "this step" || s.Rate != 0 || s.RunRequests != 3500 {
		t.Errorf("a new step shows the earlier steps' figures: %+v", s)
	}
}

// TestRenderGolden pins the frames a person reads, at 80x24 and wider.
func TestRenderGolden(t *testing.T) {
	open := runner.PhaseStart{Target: "gateway", Iteration: 2, Spec: load.Spec{Rate: 300, Duration: 30 * time.Second}, Time: t0}
	closed := runner.PhaseStart{Target: "echo", Iteration: 1, Spec: load.Spec{Requests: 10000, Concurrency: 50}, Time: t0}
	for _, tc := range []struct {
		name string
		w, h int
		o    Options
		do   func(v *View)
	}{
		{"open-80x24", 80, 24, Options{Title: "run", Phases: 3}, func(v *View) { v.Begin(open); feed(v, 7, 300, 0, true) }},
		{"open-160x40", 160, 40, Options{Title: "run", Phases: 3}, func(v *View) { v.Begin(open); feed(v, 7, 300, 0, true) }},
		{"pods-80x24", 80, 24, Options{Title: "run"}, func(v *View) { v.Begin(open); feed(v, 7, 300, 3, false) }},
		{"crowded-80x12", 80, 12, Options{Title: "run"}, func(v *View) { v.Begin(open); feed(v, 7, 300, 3, false) }},
		{"closed-80x24", 80, 24, Options{Title: "ladder", PhaseWord: "round", Phases: 5}, func(v *View) { v.Begin(closed); feed(v, 3, 1234, 0, false) }},
		{"between-80x24", 80, 24, Options{Title: "capacity", PhaseWord: "step"}, func(v *View) {
			v.Begin(open)
			feed(v, 2, 300, 0, false)
			v.End(&results.Result{Components: components()[2:]})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Components = func(time.Duration) []results.ComponentUsage { return components() }
			if strings.HasPrefix(tc.name, "between") {
				tc.o.Components = nil
			}
			v := newTestView(tc.o)
			tc.do(v)
			lines := Render(v.Snapshot(), tc.w, tc.h)
			if len(lines) > tc.h-1 {
				t.Errorf("%d lines on %d rows", len(lines), tc.h)
			}
			var b strings.Builder
			for _, l := range lines {
				if n := len([]rune(l)); n >= tc.w {
					t.Errorf("line of %d columns on %d: %q", n, tc.w, l)
				}
				fmt.Fprintln(&b, l)
			}
			testenv.Golden(t, "testdata/"+tc.name+".golden", []byte(b.String()))
		})
	}
}

func TestRenderStopping(t *testing.T) {
	v := newTestView(Options{Title: "run"})
	v.Begin(runner.PhaseStart{Target: "echo", Iteration: 1, Spec: load.Spec{Rate: 100, Duration: time.Minute}, Time: t0})
	v.stopping = true
	if got := Render(v.Snapshot(), 200, 24)[0]; !strings.Contains(got, "stopping") {
		t.Errorf("first line %q does not say the run stops", got)
	}
}

// TestViewStagedTarget: a staged run's target is the current stage's
// rate, a ramp's where the ramp is now.
func TestViewStagedTarget(t *testing.T) {
	stages, err := plan.ParseStages("4s:100,4s:400-800")
	if err != nil {
		t.Fatal(err)
	}
	v := newTestView(Options{Title: "run"})
	v.Begin(runner.PhaseStart{Target: "echo", Iteration: 1, Spec: load.Spec{Model: plan.Open, Stages: stages, Duration: 8 * time.Second}, Time: t0})
	feed(v, 7, 300, 0, false)
	// 6.5 s in: 2.5 s into the ramp from 400 to 800 over 4 s.
	if s := v.Snapshot(); math.Abs(s.Target-650) > 1e-9 || !s.Recent.HasU {
		t.Errorf("target %v (uncorrected shown: %v), want 650 and the open loop's uncorrected figures", s.Target, s.Recent.HasU)
	}
}
