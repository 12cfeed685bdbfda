package analyze

import (
	"math"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

func diagKinds(fs []results.Finding) map[string]results.Finding {
	out := map[string]results.Finding{}
	for _, f := range fs {
		out[f.Kind] = f
	}
	return out
}

func TestDiagnoseKinds(t *testing.T) {
	gen := func(cpus int, genCPU float64) *results.Run {
		r := diag2x()
		r.Environment.CPUs = cpus
		for i := range r.Results {
			r.Results[i].Components = append(r.Results[i].Components, diagComp("authbench", "load-generator", genCPU, genCPU*1.1))
		}
		return r
	}
	busyBackend := diag2x()
	for i := range busyBackend.Results {
		busyBackend.Results[i].Components = []results.ComponentUsage{diagComp("oauth-proxy", "auth-proxy", 0.0313, 0.04),
			diagComp("custom-echo", "backend", 0.73, 0.95)}
	}
	unstable := diag2x()
	unstable.Results[1].Latency.P95 = 80
	unstable.Results[3].Latency.P95 = 95
	tests := []struct {
		name string
		run  *results.Run
		want []string
		not  []string
	}{
		{"reported 3.x under 50m", diag3xThrottled(), []string{KindSaturation, KindCPUThrottling, KindAuthErrors},
			[]string{KindInstability, KindBackendBottleneck, KindGeneratorBound}},
		{"reported 2.x", diag2x(), []string{KindSaturation},
			[]string{KindCPUThrottling, KindAuthErrors, KindInstability, KindBackendBottleneck, KindGeneratorBound}},
		{"open loop at a low rate", diagFixture(plan.Open, 50, diagIter{rps: 100, mean: 48, p95: 60, ok: 3000}), nil,
			[]string{KindSaturation}},
		{"one worker", diagFixture(plan.Closed, 1, diagIter{rps: 20, mean: 50, p95: 60, ok: 200}), nil, []string{KindSaturation}},
		{"closed loop not saturated", diagFixture(plan.Closed, 50, diagIter{rps: 200, mean: 40, p95: 60, ok: 2000}), nil,
			[]string{KindSaturation}},
		{"busy backend", busyBackend, []string{KindBackendBottleneck}, []string{KindCPUThrottling}},
		{"generator on 2 CPUs", gen(2, 1.7), []string{KindGeneratorBound}, nil},
		{"generator idle", gen(8, 0.3), nil, []string{KindGeneratorBound}},
		{"unstable P95", unstable, []string{KindInstability}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diagKinds(Diagnose(tt.run, nil))
			for _, k := range tt.want {
				if _, ok := got[k]; !ok {
					t.Errorf("missing %s finding; got %v", k, got)
				}
			}
			for _, k := range tt.not {
				if f, ok := got[k]; ok {
					t.Errorf("unexpected %s finding: %s", k, f.Evidence)
				}
			}
		})
	}
}

func TestSaturationEvidence(t *testing.T) {
	f := diagKinds(Diagnose(diag3xThrottled(), nil))[KindSaturation]
	if f.Values["concurrency"] != 50 || math.Abs(f.Values["littles_law_ms"]-50/29.02*1000) > 5 {
		t.Errorf("values = %v", f.Values)
	}
	if f.Values["suggested_rate"] != 17 {
		t.Errorf("suggested rate = %v, want 17 (60%% of 29 req/s)", f.Values["suggested_rate"])
	}
	for _, want := range []string{"50 workers", "1689 ms", "Little's law", "29 req/s"} {
		if !strings.Contains(f.Evidence, want) {
			t.Errorf("evidence lacks %q: %s", want, f.Evidence)
		}
	}
	if !strings.Contains(f.Advice, "--rate 17") {
		t.Errorf("advice lacks the open-loop rate: %s", f.Advice)
	}
}

func TestOpenLoopOverload(t *testing.T) {
	run := diagFixture(plan.Open, 50, diagIter{rps: 600, mean: 900, p95: 2500, ok: 6000})
	achieved := 600.0
	run.Results[0].TargetRPS = 1000
	run.Results[0].AchievedRPS = &achieved
	f, ok := diagKinds(Diagnose(run, nil))[KindSaturation]
	if !ok || f.Values["achieved_rps"] != 600 || f.Values["suggested_rate"] != 360 {
		t.Fatalf("open loop at 1000 req/s achieving 600: finding %v, %v", ok, f.Values)
	}
}

func TestThrottlingEvenWithLowMeanCPU(t *testing.T) {
	f := diagKinds(Diagnose(diag3xThrottled(), nil))[KindCPUThrottling]
	if f.Component != "kube-auth-proxy" || f.Severity != SeverityCritical {
		t.Fatalf("finding = %+v", f)
	}
	if f.Values["throttled_ratio"] != 0.8 || f.Values["cpu_mean_cores"] != 0.03 {
		t.Errorf("values = %v", f.Values)
	}
	if f.Values["recommended_limit_cores"] != 0.1 || !strings.Contains(f.Advice, "at least 100m") {
		t.Errorf("recommended %v, advice %s; want 100m (2 × 0.0499)", f.Values["recommended_limit_cores"], f.Advice)
	}
	for _, want := range []string{"CPU limit 50m", "80%", "13800 of 17250", "mean use only 0.03 cores"} {
		if !strings.Contains(f.Evidence, want) {
			t.Errorf("evidence lacks %q: %s", want, f.Evidence)
		}
	}
}

func TestThrottlingFromPeakAtLimitOnly(t *testing.T) {
	run := diag2x()
	for i := range run.Results {
		run.Results[i].Components = []results.ComponentUsage{{Name: "proxy", Role: "auth-proxy", Source: "prometheus",
			CPUMean: 0.3, CPUPeak: 0.47, CPULimit: 0.5, ThrottledRatio: 0.01}}
	}
	f, ok := diagKinds(Diagnose(run, nil))[KindCPUThrottling]
	if !ok || f.Severity != SeverityWarning || f.Values["recommended_limit_cores"] != 0.94 {
		t.Fatalf("peak at 94%% of the limit: %v %+v", ok, f)
	}
}

func TestAuthErrors(t *testing.T) {
	run := diagFixture(plan.Closed, 10, diagIter{rps: 100, mean: 20, p95: 40, ok: 600, s401: 390,
		errors: map[string]int64{"timeout": 3, "reset": 2}})
	tl := &results.Timeline{Series: []results.Series{{Target: "gateway", Iteration: 1}}}
	for s := 0; s < 10; s++ {
		p := results.Point{T: float64(s), Requests: 100}
		if s >= 6 {
			p.AuthErrors = 97
		}
		tl.Series[0].Points = append(tl.Series[0].Points, p)
	}
	f, ok := diagKinds(Diagnose(run, tl))[KindAuthErrors]
	if !ok {
		t.Fatal("no auth-errors finding")
	}
	if f.Severity != SeverityCritical || f.Values["status_401"] != 390 || f.Values["timeouts"] != 3 || f.Values["transport_errors"] != 2 {
		t.Errorf("finding = %+v", f)
	}
	for _, want := range []string{"390 × 401", "between 6 s and 10 s", "token expiring", "3 timeouts"} {
		if !strings.Contains(f.Evidence, want) {
			t.Errorf("evidence lacks %q: %s", want, f.Evidence)
		}
	}
	reported := diagKinds(Diagnose(diag3xThrottled(), nil))[KindAuthErrors]
	if reported.Severity != SeverityWarning || reported.Values["status_403"] != 20 || !strings.Contains(reported.Evidence, "(0.04%)") {
		t.Errorf("the reported 20 × 403 in 50,000: %+v", reported)
	}
}

func TestInstabilityValues(t *testing.T) {
	run := diag2x()
	run.Results[4].ThroughputRPS = 700
	f, ok := diagKinds(Diagnose(run, nil))[KindInstability]
	if !ok || f.Values["cv_throughput"] < 0.1 || f.Values["cv_p95"] > 0.1 {
		t.Fatalf("throughput 1044..700: %v %v", ok, f.Values)
	}
}

func TestDiagnoseNil(t *testing.T) {
	if got := Diagnose(nil, nil); got != nil {
		t.Errorf("Diagnose(nil) = %v", got)
	}
	if got := Diagnose(&results.Run{}, nil); len(got) != 0 {
		t.Errorf("Diagnose(empty) = %v", got)
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{1688.6: "1689", 29.02: "29", 0.0499: "0.0499", 0.05: "0.05",
		0.00009: "0.00009", 17: "17", 1.5: "1.5", 0: "0"} {
		if got := num(in); got != want {
			t.Errorf("num(%v) = %q, want %q", in, got, want)
		}
	}
}
