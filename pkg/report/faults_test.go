package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// fxFaultRun is the closed fixture with faults on its lab's links: the
// API server slowed in iteration 2, Keycloak down for 5 s in iteration 3,
// and a client delay set before the run and never cleared; its timeline
// has one point a second per iteration.
func fxFaultRun() (*results.Run, *results.Timeline) {
	run := fxClosedRun()
	at := func(s float64) time.Time { return fxT0.Add(time.Duration(s * float64(time.Second))) }
	run.Faults = []results.FaultEvent{
		{At: at(-30), Link: results.LinkClient, Action: results.FaultSet, DelayMs: 45},
		{At: at(13), Link: results.LinkAPIServer, Action: results.FaultSet, DelayMs: 200, JitterMs: 20},
		{At: at(17.5), Link: results.LinkAPIServer, Action: results.FaultClear},
		{At: at(24), Link: results.LinkKeycloak, Action: results.FaultSet, Down: true, ForMs: 5000},
		{At: at(29), Link: results.LinkKeycloak, Action: results.FaultClear},
	}
	tl := &results.Timeline{}
	for _, r := range run.Results {
		s := results.Series{Target: r.Target, Iteration: r.Iteration}
		for i := range 10 {
			s.Points = append(s.Points, results.Point{T: float64(i), Requests: 1000, P50: 45, P99: 60})
		}
		tl.Series = append(tl.Series, s)
	}
	run.Findings = append(run.Findings, analyze.FaultFindings(run, tl)...)
	return run, tl
}

func TestFaultsSection(t *testing.T) {
	run, _ := fxFaultRun()
	s := &summaryWriter{run: run}
	s.faults()
	got := s.b.String()
	for _, w := range []string{"## Faults on the Lab's Links", "| client +45 ms | client | -30.0 s | 32.7 s (in force) |",
		"| apiserver +200 ms ±20 ms | apiserver | 13.0 s | 17.5 s (cleared) | 4.50 s |", "keycloak down 5 s", "(expired)",
		"`" + analyze.KindFaultSlowAPIServer + "`"} {
		if !strings.Contains(got, w) {
			t.Errorf("section lacks %q:\n%s", w, got)
		}
	}
	testenv.Golden(t, filepath.Join("testdata", "summary-faults.golden.md"), []byte(got))
	whole := renderSummary(t, run)
	if !strings.Contains(whole, "## Faults on the Lab's Links") || strings.Contains(renderSummary(t, fxClosedRun()), "Faults on the Lab") {
		t.Error("the summary shows the faults section only when the run has faults")
	}
}

func TestFaultBands(t *testing.T) {
	run, tl := fxFaultRun()
	// Iterations start every 11 s (at 0, 11 and 22 s) and their timelines
	// last 10 s each, laid end to end at 0, 10 and 20 on the charts' axis.
	tests := []struct {
		name    string
		targets []string
		want    []string
	}{
		{"one target", []string{"echo-2x"}, []string{
			"client +45 ms 0-10", "client +45 ms 10-20", "apiserver +200 ms ±20 ms 12-16.5",
			"client +45 ms 20-30", "keycloak down 5 s 22-27"}},
		{"several targets name theirs", []string{"echo-2x", "other"}, []string{
			"echo-2x: client +45 ms 0-10", "echo-2x: client +45 ms 10-20", "echo-2x: apiserver +200 ms ±20 ms 12-16.5",
			"echo-2x: client +45 ms 20-30", "echo-2x: keycloak down 5 s 22-27"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			charts := []chart{{ID: ChartLatencyTime, Spec: &chartSpec{}}, {ID: ChartSpectrum, Spec: &chartSpec{}}}
			faultOverlay(run, tl, tt.targets, charts)
			var got []string
			for _, b := range charts[0].Spec.Bands {
				got = append(got, fmt.Sprintf("%s %g-%g", b.Label, b.X0, b.X1))
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("bands = %q\nwant %q", got, tt.want)
			}
			if len(charts[1].Spec.Bands) != 0 {
				t.Error("a chart without a time axis got bands")
			}
		})
	}
	var b strings.Builder
	if err := RunHTML(&b, run, tl); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"bands":[`, `"label":"keycloak down 5 s"`, `id="faults"`} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("the run's page lacks %s", w)
		}
	}
}
