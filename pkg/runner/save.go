package runner

import (
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// Save writes a run that was not measured here (an import) as a run
// directory that report, compare and history treat like any other: it is
// diagnosed, summarised and indexed. It returns the directory.
func Save(out string, run *results.Run) (string, error) {
	at := run.Start
	if at.IsZero() {
		at = time.Now()
	}
	dir, err := store.NewRunDir(out, run.Name, at)
	if err != nil {
		return "", err
	}
	run.Findings = analyze.Diagnose(run, nil)
	run.SLO = analyze.EvaluateSLO(&run.Plan, run.Results)
	// The same writer as a measured run's, without a timeline: an
	// import has none.
	if err := writeFiles(dir, run, nil); err != nil {
		return dir, err
	}
	return dir, store.Index(out, dir, run)
}
