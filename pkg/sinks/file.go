package sinks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/store"
)

// file is a sink that renders one file of the run directory.
type file struct {
	name   string
	render func(io.Writer, *runner.Outcome) error
}

// File returns a sink that writes the file name of the run directory
// with render; a render or write that fails is its error.
func File(name string, render func(io.Writer, *runner.Outcome) error) runner.FileSink {
	return file{name: name, render: render}
}

// File is the name of the file the sink writes.
func (f file) File() string { return f.name }

// Write renders the file and writes it atomically.
func (f file) Write(_ context.Context, o *runner.Outcome) error {
	var b bytes.Buffer
	if err := f.render(&b, o); err != nil {
		return fmt.Errorf("rendering %s: %w", f.name, err)
	}
	return store.WriteFile(filepath.Join(o.Dir, f.name), b.Bytes())
}

// Summary writes summary.md.
func Summary() runner.FileSink {
	return File(results.SummaryFile, func(w io.Writer, o *runner.Outcome) error {
		return report.Summary(w, o.Run, analyze.Summarize(o.Run))
	})
}

// HTML writes the run's self-contained HTML report as name.
func HTML(name string) runner.FileSink {
	return File(name, func(w io.Writer, o *runner.Outcome) error {
		return RunHTML(w, o.Dir, o.Run, o.Timeline)
	})
}

// RunHTML writes a run's HTML report: its histograms read from dir and
// analysed, then laid out with the run and its timeline (nil: read from
// dir, when it has one).
func RunHTML(w io.Writer, dir string, run *results.Run, tl *results.Timeline) error {
	if tl == nil {
		var err error
		if tl, err = store.ReadTimeline(dir); err != nil {
			return err
		}
	}
	hists, err := store.ReadHistograms(dir, run)
	if err != nil {
		return err
	}
	return report.RunHTML(w, run, tl, analyze.Histograms(run, hists)...)
}

// optional is a file sink whose failure is a warning.
type optional struct {
	runner.FileSink
	log io.Writer
}

// Optional returns k with its failure turned into a warning on log: the
// run goes on without the file (the demo's page then links the summary).
func Optional(k runner.FileSink, log io.Writer) runner.FileSink {
	return optional{FileSink: k, log: logOr(log)}
}

// Write writes the file, or warns.
func (k optional) Write(ctx context.Context, o *runner.Outcome) error {
	if err := k.FileSink.Write(ctx, o); err != nil {
		fmt.Fprintf(k.log, "warning: %s: %v\n", o.Dir, err)
	}
	return nil
}
