package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// stepHistory is 20 runs of "api" whose P95 rises 20% at run 11 and whose
// concurrency changes at run 16 when split is set.
func stepHistory(split bool) ([]analyze.HistoryPoint, []store.HistoryRow) {
	rng := rand.New(rand.NewPCG(1, 1))
	var pts []analyze.HistoryPoint
	var rows []store.HistoryRow
	for i := range 20 {
		p95 := 40 * (1 + 0.02*rng.NormFloat64())
		if i >= 10 {
			p95 *= 1.2
		}
		conc := 10
		if split && i >= 15 {
			conc = 40
		}
		r := store.HistoryRow{RunID: "r" + string(rune('a'+i)), RunName: "nightly", Target: "api", Model: "closed", Concurrency: conc,
			Start: time.Date(2026, 10, 1+i, 3, 0, 0, 0, time.UTC), Requests: 100, Successes: 100, SuccessRate: 1, P95: &p95, Throughput: 900}
		rows = append(rows, r)
		pts = append(pts, analyze.HistoryPoint{Row: r, Fingerprint: &results.TargetFingerprint{Target: "api", Server: "nginx"}})
	}
	return pts, rows
}

func TestRegressionsReports(t *testing.T) {
	tests := []struct {
		name      string
		split     bool
		wantText  []string
		wantHTML  []string
		wantSplit int
	}{
		{"current regression", false, []string{"No change in: api throughput", "api — p95 (ms), 20 runs", "REGRESSION (still holds at the newest run)", "nightly (rk)", "+2", "1 regression(s) still hold"},
			[]string{"regression (current)", `"marks":[{`, "has not recovered"}, 0},
		{"regression then a split", true, []string{"REGRESSION", "history split at 2026-10-16", "Different concurrency: 10 for nightly of 2026-10-15 03:00 vs 40 for nightly of 2026-10-16 03:00"},
			[]string{"Change points", `class="chart-data"`}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts, rows := stepHistory(tt.split)
			rep := analyze.DetectRegressions(pts, analyze.RegressionQuery{Metrics: []analyze.TrendMetric{analyze.TrendP95, analyze.TrendThroughput}})
			var text, js, page bytes.Buffer
			if err := RegressionsText(&text, rep); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(text.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, text.String())
				}
			}
			if err := RegressionsJSON(&js, rep); err != nil {
				t.Fatal(err)
			}
			var out struct {
				ChangePoints []RegressionJSON `json:"change_points"`
				Splits       []SplitJSON      `json:"splits"`
			}
			if err := json.Unmarshal(js.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			if len(out.ChangePoints) != 1 || out.ChangePoints[0].RunID != "rk" || out.ChangePoints[0].Direction != "regression" || len(out.Splits) != tt.wantSplit {
				t.Errorf("json: %s", js.String())
			}
			if err := HistoryHTML(&page, rows, rep); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.wantHTML {
				if !strings.Contains(page.String(), w) {
					t.Errorf("html lacks %q", w)
				}
			}
		})
	}
}

func TestRegressionsTextEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := RegressionsText(&b, analyze.DetectRegressions(nil, analyze.RegressionQuery{})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No runs in the history") {
		t.Errorf("got %q", b.String())
	}
}
