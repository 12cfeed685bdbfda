//go:build integration

package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/ladder"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
	"github.com/authbench/authbench/pkg/stacks"
)

func TestMain(m *testing.M) {
	// lab.Up starts this test binary as the lab's supervisor.
	processes.ServeIfAsked()
	os.Exit(m.Run())
}

// TestDemo is `make demo` with small budgets on a lab of its own: every
// step's result must be present and sane, the page written and printed
// last, and no lab left running.
func TestDemo(t *testing.T) {
	testenv.NeedTools(t, toolcache.ToolPath, "`make lab` installs it", "kube-apiserver")
	labDir := filepath.Join(toolcache.CacheDir(), "lab-demo-integration")
	slo, _, err := plan.ParseSLO("p99<250ms,success_rate>=99%")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	runs := t.TempDir()
	out, err := Run(ctx, Options{
		Requests: 300, Concurrency: 10, Iterations: 2, SLO: slo,
		CapacityBudget: 12 * time.Second, Step: time.Second, OpenDuration: time.Second, OpenIterations: 2,
		LadderRounds: 2, LadderSlot: 500 * time.Millisecond,
		// 10 workers keep at most 10 calls queued at the throttled ext_authz
		// service, which serves about 40 a second at 50m: a quarter of a
		// second each, under the demo's 500 ms (sized for its 50 workers),
		// so step 3 would show no timeout. 200 ms keeps the same ratio of
		// timeout to queueing; unthrottled, the calls take about 1 ms.
		AuthzTimeout: 200 * time.Millisecond,
		LabDir:       labDir, Out: runs, Version: "test", Stdout: &stdout, Log: &log,
		Sinks:      append([]runner.Sink{sinks.Optional(sinks.HTML(ReportFile), &log)}, sinks.Standard(runs, &log)...),
		Supervisor: []string{os.Args[0], "-test.run=^$"}, Platforms: []lab.Platform{processes.Platform{}},
	})
	if err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nlog:\n%s", err, stdout.String(), log.String())
	}
	t.Logf("stdout:\n%s", stdout.String())
	checkClosed(t, out.Closed)
	checkProperly(t, out.Properly)
	checkLimit(t, out.Limit, out.Properly)
	checkLadders(t, out.Ladders)
	checkPage(t, out, stdout.String())
	if _, err := lab.Open(labDir, processes.Platform{}).Components(context.Background()); err == nil {
		t.Errorf("the demo left its lab running in %s", labDir)
	}
}

// checkClosed: step 1 ran both stacks alike and found them saturated.
func checkClosed(t *testing.T, st *ClosedStep) {
	t.Helper()
	if st == nil || st.Comparison == nil || len(st.Comparison.Sides) != 2 {
		t.Fatalf("step 1: want a comparison of two stacks, got %+v", st)
	}
	for _, res := range st.Run.Run.Results {
		if res.Requests != 300 || res.Successes != 300 || len(res.Components) == 0 {
			t.Errorf("step 1 %s iteration %d: %d requests, %d successes, %d components sampled; want 300, 300, some",
				res.Target, res.Iteration, res.Requests, res.Successes, len(res.Components))
		}
	}
	if len(st.Saturation) == 0 {
		t.Errorf("step 1: a closed loop of 10 workers gave no saturation finding: %+v", st.Run.Run.Findings)
	}
}

// checkProperly: step 2 found both capacities in a capacity run, and ran
// both stacks at one rate below both.
func checkProperly(t *testing.T, st *ProperStep) {
	t.Helper()
	if st == nil || st.Capacity == nil || len(st.Capacity.Searches) != 2 {
		t.Fatalf("step 2: want two capacity searches, got %+v", st)
	}
	if st.Capacity.Run.Kind != results.KindCapacity {
		t.Errorf("step 2: run kind %q, want %q", st.Capacity.Run.Kind, results.KindCapacity)
	}
	for _, s := range st.Capacity.Searches {
		if s.Capacity <= 0 || s.Capacity <= st.Rate {
			t.Errorf("step 2: %s capacity %g req/s, want above the common rate %g", s.Target, s.Capacity, st.Rate)
		}
	}
	if st.Comparison == nil || len(st.Comparison.Sides) != 2 {
		t.Fatalf("step 2: no open-loop comparison")
	}
	for _, s := range st.Comparison.Sides {
		if s.Model != plan.Open || s.Requests == 0 {
			t.Errorf("step 2: side %s model %s, %d requests; want an open loop that sent", s.Label, s.Model, s.Requests)
		}
	}
	if m := metricOf(st.Comparison, "p50"); m == nil || !m.Deltas[1-st.Comparison.Baseline].Sig.Known() {
		t.Errorf("step 2: the P50 difference has no significance test: %+v", m)
	}
}

// checkLimit: step 3's throttling finding names the limited proxy, and
// its capacity under the limit is lower than without.
func checkLimit(t *testing.T, st *LimitStep, before *ProperStep) {
	t.Helper()
	if st == nil || st.Limited == nil || st.Lifted == nil || st.Capacity == nil {
		t.Fatalf("step 3 incomplete: %+v", st)
	}
	if st.Throttling == nil || st.Throttling.Component != stacks.OAuth2Proxy {
		t.Errorf("step 3: no throttling finding names %s: %+v", stacks.OAuth2Proxy, st.Limited.Run.Findings)
	}
	for _, s := range before.Capacity.Searches {
		if s.Target == st.Target && st.Capacity.Searches[0].Capacity >= s.Capacity {
			t.Errorf("step 3: capacity under the limit %g req/s, not below %g without it",
				st.Capacity.Searches[0].Capacity, s.Capacity)
		}
	}
	if st.AuthzErrors == nil || st.AuthzErrors.Values["authz_errors"] == 0 || st.LiftedAuthzErrors != 0 {
		t.Errorf("step 3: the gateway's 403s from authz timeouts: finding %+v, %d once lifted; want named, then none",
			st.AuthzErrors, st.LiftedAuthzErrors)
	}
	if b, err := os.ReadFile(filepath.Join(st.Limited.Dir, results.SummaryFile)); err != nil || !bytes.Contains(b, []byte("The Gateway's Own Account")) {
		t.Errorf("step 3: the limited run's summary has no gateway section (%v)", err)
	}
	for _, res := range st.Lifted.Run.Results {
		for _, c := range res.Components {
			if c.Name == stacks.OAuth2Proxy && c.CPULimit > 0 {
				t.Errorf("step 3: the limit was not lifted: %s at %g cores", c.Name, c.CPULimit)
			}
		}
	}
}

// checkLadders: one ladder per stack, every layer attributed.
func checkLadders(t *testing.T, ls []*ladder.Outcome) {
	t.Helper()
	if len(ls) != 2 {
		t.Fatalf("step 4: %d ladders, want 2", len(ls))
	}
	for _, l := range ls {
		if len(l.Ladder.Layers) < 3 || l.Ladder.TotalMs.P50 <= 0 {
			t.Errorf("step 4: ladder %s has %d layers, end-to-end P50 %g", l.Ladder.Target, len(l.Ladder.Layers), l.Ladder.TotalMs.P50)
		}
	}
}

// checkPage: the page holds every step, and its path is printed last.
func checkPage(t *testing.T, out *Outcome, stdout string) {
	t.Helper()
	page, err := os.ReadFile(out.Report)
	if err != nil {
		t.Fatalf("page: %v", err)
	}
	for _, id := range []string{`id="step1"`, `id="step2"`, `id="step3"`, `id="step4"`, `id="verdict"`, "capacity-curve", "latency-waterfall",
		`id="step3-gateway"`, "gateway-authz-errors"} {
		if !bytes.Contains(page, []byte(id)) {
			t.Errorf("page lacks %s", id)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; last != "Report: "+out.Report {
		t.Errorf("last line %q, want the page's path", last)
	}
	for _, n := range []string{"1/5 ", "2/5 ", "3/5 ", "4/5 ", "5/5 Verdict"} {
		if !strings.Contains(stdout, "\n"+n) && !strings.HasPrefix(stdout, n) {
			t.Errorf("stdout lacks step line %q", n)
		}
	}
	if len(out.Steps) != totalSteps {
		t.Errorf("%d step times, want %d", len(out.Steps), totalSteps)
	}
}

func metricOf(c *analyze.Comparison, key string) *analyze.Metric {
	for i := range c.Latency {
		if c.Latency[i].Key == key {
			return &c.Latency[i]
		}
	}
	return nil
}
