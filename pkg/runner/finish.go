package runner

import (
	"context"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// Save writes a run that was not measured here (an import) as a run
// directory that report, compare and history treat like any other: it is
// diagnosed, then recorded as a measured run is (Record), without a
// timeline it does not have. It returns the directory.
func Save(ctx context.Context, out string, run *results.Run, sinks []Sink) (string, error) {
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
	return dir, Record(ctx, &Outcome{Dir: dir, Run: run}, sinks)
}
