package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// TestCurvesFromRun: a capacity run's steps become one curve per target,
// one point per rate, the worst step of a repeated rate kept.
func TestCurvesFromRun(t *testing.T) {
	step := func(target string, rate, p99 float64) results.Result {
		return results.Result{Target: target, Model: plan.Open, TargetRPS: rate, ThroughputRPS: rate,
			Latency: results.Latency{P50: p99 / 4, P95: p99 / 2, P99: p99}, SuccessRate: 1}
	}
	run := &results.Run{Kind: results.KindCapacity, Results: []results.Result{
		step("a", 100, 5), step("a", 200, 9), step("a", 400, 300), step("a", 200, 40), step("b", 100, 7),
	}}
	cs := CurvesFromRun(run)
	if len(cs) != 2 || cs[0].Target != "a" || cs[1].Target != "b" {
		t.Fatalf("curves %+v, want a then b", cs)
	}
	a := cs[0].Points
	if len(a) != 3 || a[0].Offered != 100 || a[1].Offered != 200 || a[2].Offered != 400 {
		t.Fatalf("a's points %+v, want 100, 200, 400 in order", a)
	}
	if a[1].P99 != 40 {
		t.Errorf("at 200 req/s P99 %g, want the worst step's 40", a[1].P99)
	}
}

// TestDemoHTML: one page, a section per step, the curve drawn with its
// capacity marks and the SLO line, the comparison's spectrum, the
// ladder's waterfall, ids unique, links kept, secrets scrubbed.
func TestDemoHTML(t *testing.T) {
	secret := "s3cr3t-token-value"
	r2, r3 := cxReported2x(), cxReported3x()
	r3.Plan.Targets[0].Headers = []plan.Header{{Name: "Authorization", Value: "Bearer " + secret}}
	c := cxCompare(t, []*results.Run{r2, r3}, analyze.CompareOptions{})
	curve := []Curve{{Target: "lab-2x", Capacity: 200, FirstFail: 220,
		Points: []CurvePoint{{Offered: 100, P50: 1, P99: 5}, {Offered: 200, P50: 2, P99: 60}, {Offered: 220, P50: 30, P99: 400}}}}
	page := DemoPage{Title: "demo", Verdict: []string{"Verdict: lab-3x is slower (" + secret + ")."}, Steps: []DemoStep{
		{ID: "step1", Title: "1. closed", Lines: []string{"closed loop line"}, Comparison: c, Runs: []*results.Run{r3},
			Findings: []results.Finding{{Kind: "saturation", Target: "lab-2x", Evidence: "queueing", Advice: "open loop"}}},
		{ID: "step2", Title: "2. properly", Lines: []string{"capacity line"}, Curves: curve, SLOP99: 100,
			Links: []DemoLink{{Label: "capacity report", Href: "run-dir/report.html"}}},
		{ID: "step4", Title: "4. ladder", Ladders: []*results.Ladder{ladderFixture()}},
	}}
	var b bytes.Buffer
	if err := DemoHTML(&b, page); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`id="verdict"`, `id="step1"`, `id="step2"`, `id="step4"`, "closed loop line",
		`href="run-dir/report.html"`, "[saturation] lab-2x: queueing", `id="step2-capacity-curve"`,
		`id="step1-percentile-spectrum"`, `id="step4-latency-waterfall-`, "uPlot"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(html, secret) {
		t.Error("page holds the token")
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(html, -1) {
		ids[m[1]]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q appears %d times", id, n)
		}
	}
	checkCurveSpec(t, html)
}

// checkCurveSpec decodes the curve's chart data: P50 and P99 per target,
// the SLO line, a mark at the capacity.
func checkCurveSpec(t *testing.T, html string) {
	t.Helper()
	re := regexp.MustCompile(`(?s)id="step2-capacity-curve".*?<script type="application/json" class="chart-data">(.*?)</script>`)
	m := re.FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no curve data")
	}
	var spec chartSpec
	if err := json.Unmarshal([]byte(m[1]), &spec); err != nil {
		t.Fatalf("curve data: %v", err)
	}
	var labels []string
	for _, s := range spec.Series {
		labels = append(labels, s.Label)
	}
	if got := strings.Join(labels, ","); got != "lab-2x P50,lab-2x P99,SLO P99" {
		t.Errorf("series %s", got)
	}
	if len(spec.Marks) != 1 || spec.Marks[0].X != 200 {
		t.Errorf("marks %+v, want the capacity at 200", spec.Marks)
	}
	if !spec.Y.Log {
		t.Error("latency from 1 ms to 400 ms should be on a log axis")
	}
}

// TestDemoHTMLEmpty: a demo that ran no step has no page.
func TestDemoHTMLEmpty(t *testing.T) {
	if err := DemoHTML(&bytes.Buffer{}, DemoPage{}); err == nil {
		t.Error("want an error for a page without steps")
	}
}
