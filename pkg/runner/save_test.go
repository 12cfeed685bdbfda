package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// TestSaveWritesLikeASession: an imported run gets the directory a
// measured run gets (summary.md, run.json listing its files, the history
// index), without a timeline it does not have, and its URLs redacted.
func TestSaveWritesLikeASession(t *testing.T) {
	out := t.TempDir()
	start := time.Date(2025, 11, 17, 9, 30, 0, 0, time.UTC)
	run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "hey-3x", ID: "hey-3x-1", Start: start, End: start.Add(time.Minute),
		Plan: plan.Plan{Name: "hey-3x", Targets: []plan.Target{{Name: "t", URL: "https://u:hunter22@127.0.0.1/x"}},
			Load: plan.Load{Requests: 100, Concurrency: 10, Iterations: 1}},
		Imported: &results.Import{Tool: "hey", Files: []string{"3x.txt"}},
		Results: []results.Result{{Target: "t", Iteration: 1, Model: plan.Closed, Requests: 100, Successes: 100, SuccessRate: 1,
			ThroughputRPS: 50, DurationS: 2, Latency: results.Latency{P50: 10, P95: 20, P99: 30, Mean: 12, Max: 40},
			Status: map[string]int64{"200": 100}}},
	}
	dir, err := Save(out, run)
	if err != nil {
		t.Fatal(err)
	}
	back, err := store.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{results.RunFile, results.SummaryFile}; !slices.Equal(back.Files, want) {
		t.Errorf("run.json lists %v, want %v", back.Files, want)
	}
	if _, err := os.Stat(filepath.Join(dir, results.TimelineFile)); err == nil {
		t.Error("an import has no timeline, yet timeline.json was written")
	}
	md, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil || !strings.Contains(string(md), "hey-3x") {
		t.Errorf("summary.md: %v, %.100q", err, md)
	}
	js, _ := os.ReadFile(filepath.Join(dir, results.RunFile))
	if strings.Contains(string(js)+string(md), "hunter22") {
		t.Error("the URL password was written")
	}
	rows, err := store.History(out, store.HistoryQuery{})
	if err != nil || len(rows) != 1 {
		t.Errorf("history rows %d, %v; want the import indexed", len(rows), err)
	}
}
