package runner

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// WriteRun writes a measured run's directory: timeline.json, summary.md and
// run.json (last, so a run.json always describes complete siblings), then
// indexes the run in the runs directory's history. Files already in dir
// (histogram logs, an HTML report) are listed in run.json.
func WriteRun(dir, runsDir string, run *results.Run, tl *results.Timeline, log io.Writer) error {
	if err := writeFiles(dir, run, tl); err != nil {
		return err
	}
	if err := store.Index(runsDir, dir, run); err != nil {
		fmt.Fprintf(log, "warning: run not indexed in history: %v\n", err)
	}
	return nil
}

// writeFiles is the one writer of a run directory's record, measured here
// (Session.Write) or imported (Save): timeline.json when there is a
// timeline, summary.md, then run.json listing every file in dir.
func writeFiles(dir string, run *results.Run, tl *results.Timeline) error {
	if tl != nil {
		if err := store.WriteJSON(filepath.Join(dir, results.TimelineFile), tl); err != nil {
			return err
		}
	}
	run.Files = store.ListFiles(dir, results.RunFile, results.SummaryFile)
	var md bytes.Buffer
	if err := report.Summary(&md, run); err != nil {
		return fmt.Errorf("rendering summary: %w", err)
	}
	if err := store.WriteFile(filepath.Join(dir, results.SummaryFile), md.Bytes()); err != nil {
		return err
	}
	return store.Write(dir, run)
}
