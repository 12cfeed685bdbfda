package runner

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// finish diagnoses the run and writes timeline.json, summary.md and
// run.json (last, so a run.json always describes complete siblings), then
// indexes the run in the history database.
func (e *execution) finish(interrupted bool) (*Outcome, error) {
	run := e.run
	run.End = time.Now().UTC()
	run.Partial = interrupted
	run.Findings = analyze.Diagnose(run, e.tl)
	run.SLO = analyze.EvaluateSLO(e.plan, run.Results)
	run.Capacity = analyze.PlanCapacity(run, analyze.CapacityOptionsFrom(e.plan))
	if e.o.Monitor != nil {
		for _, w := range e.o.Monitor.Warnings() {
			fmt.Fprintln(e.o.Log, "warning:", w)
		}
	}
	out := &Outcome{Dir: e.dir, Run: run, Timeline: e.tl}
	if err := store.WriteJSON(filepath.Join(e.dir, results.TimelineFile), e.tl); err != nil {
		return out, err
	}
	run.Files = listFiles(e.dir, results.RunFile, results.SummaryFile)
	var md bytes.Buffer
	if err := report.Summary(&md, run); err != nil {
		return out, fmt.Errorf("rendering summary: %w", err)
	}
	if err := store.WriteFile(filepath.Join(e.dir, results.SummaryFile), md.Bytes()); err != nil {
		return out, err
	}
	if err := store.Write(e.dir, run); err != nil {
		return out, err
	}
	if err := store.Index(e.o.Out, e.dir, run); err != nil {
		fmt.Fprintf(e.o.Log, "warning: run not indexed in history: %v\n", err)
	}
	return out, nil
}

// listFiles names the run directory's files, plus those about to be written.
func listFiles(dir string, extra ...string) []string {
	seen := map[string]bool{}
	for _, x := range extra {
		seen[x] = true
	}
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if !en.IsDir() && en.Name()[0] != '.' {
			seen[en.Name()] = true
		}
	}
	files := make([]string, 0, len(seen))
	for f := range seen {
		files = append(files, f)
	}
	sort.Strings(files)
	return files
}
