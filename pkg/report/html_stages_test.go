package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// TestRunHTMLStages checks the staged run's time charts: the target rate
// drawn beside the throughput, following the schedule, and a mark where
// each stage begins on the throughput and latency charts.
func TestRunHTMLStages(t *testing.T) {
	run := fxStagedRun()
	var pts []results.Point
	for s := range 120 {
		pts = append(pts, results.Point{T: float64(s), Requests: 100, P50: 1, P99: 3})
	}
	tl := &results.Timeline{Series: []results.Series{{Target: "api", Iteration: 1, Points: pts}}}
	var b bytes.Buffer
	if err := RunHTML(&b, run, tl); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if !strings.Contains(html, "ramp 100 → 500 req/s over 1m0s") {
		t.Errorf("no stage table in the page")
	}
	tp := specOf(t, html, ChartThroughputTime)
	if tp == nil {
		t.Fatal("no throughput chart")
	}
	var target *seriesSpec
	for i := range tp.Series {
		if strings.HasSuffix(tp.Series[i].Label, " target") {
			target = &tp.Series[i]
		}
	}
	if target == nil || len(target.Y) != len(pts) || !target.Dash {
		t.Fatalf("throughput chart series %+v: want a dashed target over every second", tp.Series)
	}
	// The hold, the middle of the ramp (second 60: 100 + 400·30.5/60), the last hold.
	for _, c := range []struct {
		i    int
		want float64
	}{{0, 100}, {29, 100}, {60, 100 + 400*30.5/60}, {119, 500}} {
		if got := target.Y[c.i]; got < c.want-0.01 || got > c.want+0.01 {
			t.Errorf("target at second %d = %g, want %g", c.i, got, c.want)
		}
	}
	for _, id := range []string{ChartThroughputTime, ChartLatencyTime} {
		s := specOf(t, html, id)
		if s == nil || len(s.Marks) != len(run.Plan.Load.Stages) || s.Marks[1].X != 30 || s.Marks[2].X != 90 {
			t.Errorf("chart %s marks %+v: want one at each stage's start (0, 30, 90)", id, s)
		}
	}
}
