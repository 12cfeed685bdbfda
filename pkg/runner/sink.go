package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// Sink takes a finished run once its run.json is on disk: a derived file
// (summary.md, an HTML report), the history index, a search server. The
// runner only measures and records; what else a run becomes is the
// caller's to choose (the CLI wires its sinks, pkg/sinks holds them), so
// that the engine and the pod agent carry no renderer or client.
type Sink interface {
	// Write takes the run. Its error is reported and returned by the
	// run, whose run.json stays; the other sinks still run.
	Write(ctx context.Context, o *Outcome) error
}

// FileSink is a Sink that adds one file to the run directory: run.json,
// written before any sink runs, already lists it.
type FileSink interface {
	Sink
	// File is the name of the file Write adds to the run directory.
	File() string
}

// Record writes a finished run's directory and hands it to the sinks in
// turn. run.json comes first: it is the result, and a disk that fills up
// or a renderer that fails afterwards must not lose it. It lists the
// files about to be written (timeline.json, each FileSink's); when one
// of them could not be written, run.json is written again listing what
// is there. Every failure is joined in the error, which says that
// run.json was written.
func Record(ctx context.Context, o *Outcome, sinks []Sink) error {
	run, extra := o.Run, []string{results.RunFile}
	if o.Timeline != nil {
		extra = append(extra, results.TimelineFile)
	}
	for _, k := range sinks {
		if f, ok := k.(FileSink); ok {
			extra = append(extra, f.File())
		}
	}
	run.Files = store.ListFiles(o.Dir, extra...)
	if err := store.Write(o.Dir, run); err != nil {
		return err
	}
	// The load is over: an interrupted run's context is cancelled, yet
	// its derived files are still written.
	ctx = context.WithoutCancel(ctx)
	var errs []error
	if o.Timeline != nil {
		errs = append(errs, store.WriteJSON(filepath.Join(o.Dir, results.TimelineFile), o.Timeline))
	}
	for _, k := range sinks {
		errs = append(errs, k.Write(ctx, o))
	}
	if files := store.ListFiles(o.Dir, results.RunFile); !slices.Equal(files, run.Files) {
		run.Files = files
		errs = append(errs, store.Write(o.Dir, run))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s is written, not all that derives from it: %w", filepath.Join(o.Dir, results.RunFile), err)
	}
	return nil
}
