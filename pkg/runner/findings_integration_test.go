//go:build integration

package runner_test

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/cgroup"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

var (
	baselineOnce sync.Once
	baselineRun  *results.Run
)

// baseline is closedLoad through the 3x stack with no limit anywhere: the
// throughput the throttled run is compared with, and the closed-loop run
// whose capacity sets the open loop's rate. It runs once, for whichever
// test needs it first.
func baseline(t *testing.T) *results.Run {
	t.Helper()
	needLab(t)
	baselineOnce.Do(func() {
		checkLimit(t, "", 0)
		baselineRun, _ = runLab(t, labPlan(t, "unlimited", closedLoad()))
	})
	if baselineRun == nil {
		t.Fatal("the unlimited baseline run failed in an earlier test")
	}
	return baselineRun
}

// checkLimit checks oauth2-proxy's limit where a user sees it (`lab
// status`) and where the kernel enforces it (its cgroup's quota).
func checkLimit(t *testing.T, recorded string, cores float64) {
	t.Helper()
	st, err := lab.Open(labDir, processes.Platform{}).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, ok := st.Component(stacks.OAuth2Proxy)
	if !ok || c.Cgroup == "" {
		t.Fatalf("oauth2-proxy has no cgroup in the lab's state: %+v", c)
	}
	if c.Limit != recorded {
		t.Errorf("lab status: oauth2-proxy limit %q, want %q", c.Limit, recorded)
	}
	g, err := cgroup.Open(c.Cgroup)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.CPULimit-cores) > 1e-9 {
		t.Errorf("oauth2-proxy's cgroup: CPU limit %g cores, want %g", s.CPULimit, cores)
	}
}

// TestLiveLimitThrottlesOAuth2Proxy is the migration reports' misconfiguration
// as a what-if on the running lab: the same closed-loop load through the 3x
// stack, without and then with a 50m CPU limit on oauth2-proxy, put on and
// lifted live with Lab.SetLimit.
func TestLiveLimitThrottlesOAuth2Proxy(t *testing.T) {
	unlimited := baseline(t)
	onlyStatus(t, unlimited, "200")
	if f := findings(unlimited, analyze.KindCPUThrottling); len(f) > 0 {
		t.Errorf("the unlimited run has cpu-throttling findings: %+v", f)
	}

	if err := lab.Open(labDir, processes.Platform{}).SetLimit(context.Background(), lab.Limit{Component: stacks.OAuth2Proxy, MilliCPU: 50}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Open(labDir, processes.Platform{}).SetLimit(context.Background(), lab.Limit{Component: stacks.OAuth2Proxy}); err != nil {
			t.Fatalf("lifting the limit: %v", err)
		}
		checkLimit(t, "", 0)
	})
	checkLimit(t, "50m", 0.05)
	limited, _ := runLab(t, labPlan(t, "oauth2-proxy-50m", closedLoad()))
	onlyStatus(t, limited, "200")

	free, capped := throughput(unlimited), throughput(limited)
	t.Logf("throughput: unlimited %.0f req/s, oauth2-proxy at 50m %.0f req/s (%.1f%%)", free, capped, capped/free*100)
	if capped >= 0.5*free {
		t.Errorf("throughput with oauth2-proxy at 50m is %.0f req/s, %.0f%% of the unlimited %.0f req/s; want below 50%%",
			capped, capped/free*100, free)
	}
	var hit *results.Finding
	for _, f := range findings(limited, analyze.KindCPUThrottling) {
		if f.Component == stacks.OAuth2Proxy {
			hit = &f
		}
	}
	if hit == nil {
		t.Fatalf("no cpu-throttling finding names oauth2-proxy; findings: %+v", limited.Findings)
	}
	t.Logf("cpu-throttling: limit %g cores, throttled ratio %.2f, %.2f s throttled, peak %.3f cores",
		hit.Values["cpu_limit_cores"], hit.Values["throttled_ratio"], hit.Values["throttled_seconds"], hit.Values["cpu_peak_cores"])
	if v := hit.Values["cpu_limit_cores"]; math.Abs(v-0.05) > 1e-9 {
		t.Errorf("finding's cpu_limit_cores = %g, want 0.05", v)
	}
	if v := hit.Values["throttled_ratio"]; v <= analyze.ThrottleRatio || v > 1 {
		t.Errorf("finding's throttled_ratio = %g, want above %g", v, analyze.ThrottleRatio)
	}
	if !strings.Contains(hit.Evidence, "CPU limit 50m") {
		t.Errorf("evidence does not name the 50m limit: %s", hit.Evidence)
	}
	checkRecordedLimit(t, unlimited, "", 0)
	checkRecordedLimit(t, limited, "50m", 0.05)
}

// checkRecordedLimit checks oauth2-proxy's limit in run.json: in the lab
// record and in what the local sampler read from its cgroup.
func checkRecordedLimit(t *testing.T, run *results.Run, recorded string, cores float64) {
	t.Helper()
	var inRecord *results.LabComponent
	if run.Lab != nil {
		for _, c := range run.Lab.Components {
			if c.Name == stacks.OAuth2Proxy {
				inRecord = &c
			}
		}
	}
	if inRecord == nil || inRecord.Limit != recorded {
		t.Errorf("run %s: lab record of oauth2-proxy %+v, want limit %q", run.Name, inRecord, recorded)
	}
	for _, r := range run.Results {
		u, ok := usage(r, stacks.OAuth2Proxy, observe.SourceLocal)
		if !ok {
			t.Errorf("run %s: no local sample of oauth2-proxy", run.Name)
			continue
		}
		if math.Abs(u.CPULimit-cores) > 1e-9 {
			t.Errorf("run %s: sampled CPU limit %g, want %g", run.Name, u.CPULimit, cores)
		}
	}
}

// TestSaturationClosedLoopButNotOpenLoopAtLowRate: the closed-loop run
// measured capacity (Little's law holds), while an open loop at a fifth of
// that capacity measures latency.
func TestSaturationClosedLoopButNotOpenLoopAtLowRate(t *testing.T) {
	closed := baseline(t)
	sat := findings(closed, analyze.KindSaturation)
	if len(sat) != 1 {
		t.Fatalf("closed-loop run: %d saturation findings, want 1; findings: %+v", len(sat), closed.Findings)
	}
	if d := sat[0].Values["deviation"]; math.Abs(d) > analyze.SaturationTolerance {
		t.Errorf("saturation deviation %g, beyond Little's law's tolerance", d)
	}
	capacity := throughput(closed)
	rate := math.Round(0.2 * capacity)
	open, _ := runLab(t, labPlan(t, "open-20pct", plan.Load{Concurrency: 16, Rate: rate, Iterations: 1,
		Duration: plan.Duration(4 * time.Second), WarmupDuration: plan.Duration(time.Second)}))
	onlyStatus(t, open, "200")
	for _, r := range open.Results {
		if r.Model != plan.Open || r.AchievedRPS == nil || *r.AchievedRPS < 0.9*rate {
			t.Errorf("open loop at %.0f req/s: model %s, achieved %v", rate, r.Model, r.AchievedRPS)
		}
	}
	if f := findings(open, analyze.KindSaturation); len(f) > 0 {
		t.Errorf("open loop at %.0f req/s (20%% of the closed loop's %.0f req/s) has saturation findings: %+v", rate, capacity, f)
	}
}
