package report

import (
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// fxStagedRun is a three-stage open loop whose last stage fell behind,
// with one component sampled and throttled in the busiest stage.
func fxStagedRun() *results.Run {
	ss := plan.Stages{
		{Duration: plan.Duration(30 * time.Second), From: 100, To: 100},
		{Duration: plan.Duration(60 * time.Second), From: 100, To: 500},
		{Duration: plan.Duration(30 * time.Second), From: 500, To: 500},
	}
	stage := func(i int, achieved float64, p50, p99, p99u float64, unsent int64, errs map[string]int64, cpu, throttled float64) results.Stage {
		var start time.Duration
		for _, s := range ss[:i] {
			start += s.Duration.D()
		}
		st := ss[i]
		n := int64(st.Requests()) - unsent
		var failed int64
		for _, v := range errs {
			failed += v
		}
		return results.Stage{
			Stage: i + 1, Spec: st.String(), FromRPS: st.From, ToRPS: st.To, TargetRPS: st.Mean(),
			Start: fxT0.Add(start), End: fxT0.Add(start + st.Duration.D()), DurationS: st.Duration.D().Seconds(),
			Scheduled: int64(st.Requests()), Requests: n, Successes: n - failed, SuccessRate: float64(n-failed) / float64(n),
			AchievedRPS: achieved, Unsent: unsent, Latency: fxLatency(p50, p99*0.8, p99), LatencyUncorrected: fxLatency(p50, p99u*0.8, p99u),
			Status: map[string]int64{"200": n - failed}, Errors: errs,
			Components: []results.ComponentUsage{{Name: "oauth2-proxy", Role: "auth-proxy", Source: "local", CPUMean: cpu, CPUPeak: cpu * 1.2,
				CPULimit: 0.5, ThrottledRatio: throttled, CPUSecondsPer1k: cpu / st.Mean() * 1000}},
		}
	}
	stages := []results.Stage{
		stage(0, 99.9, 1.2, 3.1, 2.9, 0, map[string]int64{}, 0.08, 0),
		stage(1, 296.4, 1.9, 14.8, 6.2, 0, map[string]int64{}, 0.31, 0.02),
		stage(2, 431.0, 38.5, 912, 45.1, 2070, map[string]int64{"timeout": 37}, 0.5, 0.64),
	}
	var n, ok int64
	for _, s := range stages {
		n, ok = n+s.Requests, ok+s.Successes
	}
	l, u := fxLatency(2.4, 120, 640), fxLatency(2.1, 30.2, 41.7)
	res := results.Result{
		Target: "api", Iteration: 1, Model: plan.Open, Start: fxT0, End: fxT0.Add(ss.Total().D()),
		Requests: n, Successes: ok, SuccessRate: float64(ok) / float64(n), ThroughputRPS: float64(n) / 120, GoodputRPS: float64(ok) / 120,
		DurationS: 120, Latency: l, LatencyUncorrected: &u, TargetRPS: ss.Mean(), AchievedRPS: fxPtr(float64(n) / 120),
		LateSends: fxPtr(int64(4210)), Unsent: fxPtr(int64(2070)), Stages: stages,
		Status: map[string]int64{"200": ok}, Errors: map[string]int64{"timeout": 37}, Phases: fxPhases(1.8),
	}
	return &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "v0.3.0", Name: "api-stages", ID: "20251118-150000-api-stages",
		Start: fxT0, End: fxT0.Add(121 * time.Second),
		Plan: plan.Plan{
			Name:    "api-stages",
			Targets: []plan.Target{{Name: "api", URL: "http://127.0.0.1:8080/v1/models", Method: "GET"}},
			Load:    plan.Load{Duration: ss.Total(), Stages: ss, Concurrency: 100, Iterations: 1},
			Client:  plan.Client{Timeout: plan.Duration(5 * time.Second)},
		},
		Environment: fxEnv(results.TargetFingerprint{Target: "api", URL: "http://127.0.0.1:8080/v1/models", Status: 200}),
		Results:     []results.Result{res},
		Files:       []string{"run.json", "summary.md"},
	}
}

// TestSummaryStages holds the stage section to its golden, and checks
// that it marks the stage that fell behind and nothing else.
func TestSummaryStages(t *testing.T) {
	out := renderSummary(t, fxStagedRun())
	if m := badNumbers.FindString(out); m != "" {
		t.Errorf("summary contains %q", m)
	}
	start := strings.Index(out, "## Stages")
	if start < 0 {
		t.Fatalf("no stage section:\n%s", out)
	}
	section := out[start:]
	section = section[:strings.Index(section[3:], "\n## ")+4]
	testenv.Golden(t, "testdata/summary/stages-section.md", []byte(section))
	if got := strings.Count(section, "⚠️ 2,070 unsent"); got != 1 {
		t.Errorf("the lagging stage is marked %d times, want once", got)
	}
	if got := strings.Count(section, "✅"); got != 2 {
		t.Errorf("%d stages marked as kept, want 2", got)
	}
	if !strings.Contains(out, "`30s:100,1m0s:100-500,30s:500`") {
		t.Errorf("the configuration does not give the stages as written")
	}
}

// TestTextStages checks the terminal output's stage lines.
func TestTextStages(t *testing.T) {
	var b strings.Builder
	if err := Text(&b, fxStagedRun()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"open loop on stages 30s:100,1m0s:100-500,30s:500", "  2 1m0s:100-500:\t300.0000 / 296.4000 req/s", "timeout × 37"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}
