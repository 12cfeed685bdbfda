package sinks

import (
	"context"
	"fmt"
	"io"

	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/store"
)

// index adds a run to its runs directory's history.
type index struct {
	runsDir string
	log     io.Writer
}

// Index returns the sink that indexes a run in runsDir's history. A run
// that cannot be indexed is a warning on log: it is on disk, and history
// can be rebuilt from the directories.
func Index(runsDir string, log io.Writer) runner.Sink {
	return index{runsDir: runsDir, log: logOr(log)}
}

// Write indexes the run.
func (x index) Write(_ context.Context, o *runner.Outcome) error {
	if err := store.Index(x.runsDir, o.Dir, o.Run); err != nil {
		fmt.Fprintf(x.log, "warning: run not indexed in history: %v\n", err)
	}
	return nil
}

func logOr(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
