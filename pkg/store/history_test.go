package store

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// histRun is a run of one target with per-iteration P50/P95 and throughput.
func histRun(id, name, target string, start time.Time, p50s, p95s, rps []float64) *results.Run {
	run := &results.Run{SchemaVersion: results.SchemaVersion, Name: name, ID: id, Start: start,
		Plan: plan.Plan{Name: name, Targets: []plan.Target{{Name: target, URL: "http://127.0.0.1:8080/"}},
			Load: plan.Load{Requests: 1000, Concurrency: 50, Iterations: len(p50s)}},
		Environment: results.Environment{Host: "perf-laptop"}}
	for i := range p50s {
		run.Results = append(run.Results, results.Result{Target: target, Iteration: i + 1, Model: plan.Closed,
			Requests: 1000, Successes: 990, SuccessRate: 0.99, ThroughputRPS: rps[i], DurationS: 1000 / rps[i],
			Latency: results.Latency{P50: p50s[i], P95: p95s[i], P99: p95s[i] * 1.2, Mean: p50s[i] * 1.05}})
	}
	return run
}

func writeRun(t *testing.T, runsDir string, run *results.Run) string {
	t.Helper()
	dir, err := NewRunDir(runsDir, run.Name, run.Start)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, run); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	oct15 = time.Date(2025, 10, 15, 16, 0, 0, 0, time.UTC)
	nov17 = time.Date(2025, 11, 17, 9, 30, 0, 0, time.UTC)
)

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func near(a *float64, b float64) bool { return a != nil && math.Abs(*a-b) < 1e-9 }

func TestIndexAndHistory(t *testing.T) {
	runs := t.TempDir()
	nov := histRun("nov", "3.x", "gateway", nov17, []float64{1600, 1640}, []float64{3120, 3160}, []float64{29.4, 28.7})
	oct := histRun("oct", "3.x", "gateway", oct15, []float64{2610, 2650}, []float64{2750, 2850}, []float64{19.1, 18.7})
	other := histRun("2x", "2.x", "route", oct15.Add(time.Hour), []float64{50}, []float64{67}, []float64{931})
	for _, r := range []*results.Run{nov, oct, other} {
		if err := Index(runs, writeRun(t, runs, r), r); err != nil {
			t.Fatalf("Index: %v", err)
		}
	}
	// Idempotent: indexing again changes nothing.
	if err := Index(runs, filepath.Join(runs, "x"), nov); err != nil {
		t.Fatal(err)
	}
	all, err := History(runs, HistoryQuery{})
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	if len(all) != 3 {
		t.Fatalf("rows = %d, want 3", len(all))
	}
	if all[0].RunID != "oct" || all[1].RunID != "2x" || all[2].RunID != "nov" {
		t.Errorf("order = %s, %s, %s; want oldest first", all[0].RunID, all[1].RunID, all[2].RunID)
	}
	gw, err := History(runs, HistoryQuery{Target: "gateway"})
	if err != nil || len(gw) != 2 {
		t.Fatalf("gateway rows = %d, %v", len(gw), err)
	}
	n := gw[1]
	if !near(n.P50, 1620) || !near(n.P95, 3140) || math.Abs(n.Throughput-29.05) > 1e-9 {
		t.Errorf("nov row = p50 %v p95 %v tp %g", *n.P50, *n.P95, n.Throughput)
	}
	if n.Iterations != 2 || n.Requests != 2000 || n.SuccessRate != 0.99 || n.Imported || n.P50Merged != nil {
		t.Errorf("nov row = %+v", n)
	}
	if !n.Start.Equal(nov17) || n.Concurrency != 50 || n.Model != "closed" {
		t.Errorf("nov row start %v c %d model %s", n.Start, n.Concurrency, n.Model)
	}
	if lim, _ := History(runs, HistoryQuery{Limit: 1}); len(lim) != 1 || lim[0].RunID != "nov" {
		t.Errorf("limit 1 = %+v, want the latest", lim)
	}
	since, _ := History(runs, HistoryQuery{Since: nov17.Add(-time.Hour)})
	if len(since) != 1 || since[0].RunID != "nov" {
		t.Errorf("since = %+v", since)
	}
}

func TestHistoryImportedAndUnmeasured(t *testing.T) {
	runs := t.TempDir()
	r := histRun("wrk-1", "wrk", "echo", time.Time{}, []float64{1.2}, []float64{0}, []float64{40000})
	r.Imported = &results.Import{Tool: "wrk", Files: []string{"wrk.txt"}}
	r.Results[0].Unavailable = []string{"min", "p95", "p999"}
	dated := histRun("dated", "d", "echo", oct15, []float64{1}, []float64{2}, []float64{100})
	for _, run := range []*results.Run{r, dated} {
		if err := Index(runs, filepath.Join(runs, run.ID), run); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := History(runs, HistoryQuery{Target: "echo"})
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
	if rows[0].RunID != "dated" {
		t.Errorf("undated imported run should sort last: %s first", rows[0].RunID)
	}
	w := rows[1]
	if !w.Imported || w.Tool != "wrk" || !w.Start.IsZero() {
		t.Errorf("imported row = %+v", w)
	}
	if w.P95 != nil || !near(w.P50, 1.2) {
		t.Errorf("P95 unmeasured must be nil, P50 1.2: p95=%v p50=%v", w.P95, w.P50)
	}
	if w.Dir != "wrk-1" {
		t.Errorf("dir = %q, want relative to the runs dir", w.Dir)
	}
}

func TestHistoryMergedFromHlog(t *testing.T) {
	runs := t.TempDir()
	r := histRun("h", "h", "echo", oct15, []float64{10, 20}, []float64{15, 25}, []float64{100, 100})
	dir := writeRun(t, runs, r)
	for i := range r.Results {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for v := 1; v <= 1000; v++ {
			_ = h.RecordValue(int64(v * 20 * (i + 1))) // µs: uniform up to 20 / 40 ms
		}
		r.Results[i].HistogramFile = HistogramFileName("echo", i+1)
		f, err := os.Create(filepath.Join(dir, r.Results[i].HistogramFile))
		if err != nil {
			t.Fatal(err)
		}
		w := hdrhistogram.NewHistogramLogWriter(f)
		_ = w.OutputLogFormatVersion()
		if err := w.OutputIntervalHistogram(h); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := Index(runs, dir, r); err != nil {
		t.Fatal(err)
	}
	rows, err := History(runs, HistoryQuery{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
	// Merged: 1000 values uniform to 20 ms and 1000 to 40 ms; half of all
	// lie below x where x/20 + x/40 = 1, x = 13.3 ms (not the 15 ms mean
	// of the iterations' medians).
	if m := rows[0].P50Merged; m == nil || math.Abs(*m-13.33) > 0.05 {
		t.Errorf("merged P50 = %v, want ≈13.33 ms", deref(m))
	}
}

func TestHistorySurvivesDeletedIndex(t *testing.T) {
	runs := t.TempDir()
	a := histRun("a", "a", "echo", oct15, []float64{1}, []float64{2}, []float64{10})
	b := histRun("b", "b", "echo", nov17, []float64{3}, []float64{4}, []float64{20})
	da := writeRun(t, runs, a)
	writeRun(t, runs, b)
	if err := Index(runs, da, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(runs, HistoryFile)); err != nil {
		t.Fatal(err)
	}
	rows, err := History(runs, HistoryQuery{})
	if err != nil || len(rows) != 2 {
		t.Fatalf("after deleting the index: %d rows, %v; want both runs back", len(rows), err)
	}
	// A removed run directory drops out on reindex.
	if err := os.RemoveAll(da); err != nil {
		t.Fatal(err)
	}
	n, err := Reindex(runs)
	if err != nil || n != 1 {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	rows, _ = History(runs, HistoryQuery{})
	if len(rows) != 1 || rows[0].RunID != "b" {
		t.Errorf("rows after prune = %+v", rows)
	}
}

func TestReindexReportsBrokenRun(t *testing.T) {
	runs := t.TempDir()
	good := histRun("g", "g", "echo", oct15, []float64{1}, []float64{2}, []float64{10})
	writeRun(t, runs, good)
	bad := filepath.Join(runs, "broken")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, results.RunFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := Reindex(runs)
	if n != 1 || err == nil {
		t.Errorf("Reindex = %d, %v; want 1 indexed and an error naming the broken run", n, err)
	}
}
