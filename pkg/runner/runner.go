// Package runner carries a plan through the engine and onto disk: it probes
// each target, warms up, runs every iteration of every target, samples
// components, diagnoses, and writes the run directory. It is the one place
// that knows the order of the stages; each stage lives in its own package.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// Options configure one run.
type Options struct {
	// Plan is completed and validated by Run.
	Plan *plan.Plan
	// Out is the runs directory. Default "runs".
	Out string
	// CommandLine is recorded in run.json after redaction.
	CommandLine []string
	// Version is authbench's version, recorded in run.json.
	Version string
	// Log receives human messages (stderr in the CLI). Default io.Discard.
	Log io.Writer
	// Progress, when set, receives a redrawn progress line every 250 ms
	// (the CLI sets it only when stdout is a terminal).
	Progress io.Writer
	// Monitor, when set, samples components during the run.
	Monitor *observe.Monitor
	// Lab describes the lab the plan targets, if any.
	Lab *results.Lab
}

// Outcome is what a run produced.
type Outcome struct {
	// Dir is the run directory.
	Dir string
	Run *results.Run
	// Timeline is what timeline.json holds.
	Timeline *results.Timeline
}

// ErrInterrupted is returned (with a complete Outcome) when the context
// was cancelled: what was measured has been written, marked partial.
var ErrInterrupted = errors.New("run interrupted; partial results written")

// Run executes the plan and writes the run directory. Setup failures are
// returned as errors; per-request failures are data in the results.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Out == "" {
		o.Out = "runs"
	}
	p := o.Plan
	p.Complete()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	targets, err := prepareTargets(ctx, p)
	if err != nil {
		return nil, err
	}
	attacker, err := load.NewAttacker(p.Client)
	if err != nil {
		return nil, fmt.Errorf("preparing http client: %w", err)
	}
	start := time.Now()
	dir, err := store.NewRunDir(o.Out, p.Name, start)
	if err != nil {
		return nil, err
	}
	r := &execution{o: o, plan: p, attacker: attacker, targets: targets, dir: dir}
	r.run = newRun(o, start)
	r.tl = &results.Timeline{}
	interrupted := r.execute(ctx)
	out, err := r.finish(interrupted)
	if err != nil {
		return out, err
	}
	if interrupted {
		return out, ErrInterrupted
	}
	return out, nil
}

func newRun(o Options, start time.Time) *results.Run {
	return &results.Run{
		SchemaVersion:    results.SchemaVersion,
		AuthbenchVersion: o.Version,
		Name:             o.Plan.Name,
		ID:               newID(start),
		Start:            start.UTC(),
		CommandLine:      redactArgs(o.CommandLine),
		Plan:             *o.Plan,
		Environment:      environment(),
		Lab:              o.Lab,
	}
}

func newID(t time.Time) string {
	return fmt.Sprintf("%s-%04x", t.UTC().Format(store.DirTimeFormat), uint16(os.Getpid()^t.Nanosecond()))
}
