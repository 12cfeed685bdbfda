// Package demo is `make demo`: it retells the migration reports on the lab, in
// five steps, each within a budget of its own and each printing one or two
// lines (details go to the run directories):
//
//  1. the migration reports' comparison as they ran it (closed loop, 2x
//     against 3x), with the saturation finding that makes its latency
//     ratio a capacity ratio;
//  2. the same question asked properly: each stack's capacity under an
//     SLO, and both stacks' latency at one open-loop rate below both;
//  3. the reports' misconfiguration: a 50m CPU limit on the auth proxy, the
//     collapse, the throttling finding that names it, and the recovery;
//  4. the ladder: where each stack's latency goes, layer by layer;
//  5. one HTML page of all of it, whose path is printed last, after the
//     verdict.
//
// It starts the lab unless one is running, and stops the lab it started.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
)

// Defaults of Options.
const (
	DefaultCapacityBudget = 40 * time.Second
	DefaultStep           = 2 * time.Second
	DefaultOpenDuration   = 3 * time.Second
	DefaultOpenIterations = 3
	DefaultRateFraction   = 0.5
	DefaultLadderRounds   = 3
	DefaultMinRate        = 50.0
	DefaultLimit          = "oauth2-proxy=50m"
	// DefaultAuthzTimeout is the gateways' ext_authz timeout in a lab the
	// demo starts: short against the gateway's 5 s default, so that step
	// 3's throttled ext_authz service, whose queue the demo's concurrency
	// bounds (50 requests at about 70 a second under 50m), outlives it; yet
	// 5x the SLO's P99 bound, so that no call the SLO accepts is cut off.
	DefaultAuthzTimeout = 500 * time.Millisecond
	// DefaultSLO is the objective capacity is searched under.
	DefaultSLO = "p99<100ms,success_rate>=99.9%"
)

// Options configure the demo. Zero values take the defaults noted.
type Options struct {
	// Requests per iteration of step 1's closed loop. Default
	// lab.ScenarioRequests.
	Requests int64
	// Concurrency of the closed loop (step 1), and the bound on requests
	// in flight of every open loop. Default lab.ScenarioConcurrency.
	Concurrency int
	// Iterations of step 1's closed loop. Default lab.ScenarioIterations.
	Iterations int
	// Warmup requests per stack before step 1, not recorded: the first
	// requests pay for connections, TLS and cold caches. Default 10% of
	// Requests; negative disables.
	Warmup int64
	// SLO is what capacity is searched under. Default DefaultSLO.
	SLO *plan.SLO
	// CapacityBudget bounds each stack's capacity search. Default
	// DefaultCapacityBudget.
	CapacityBudget time.Duration
	// Step is each capacity step's duration. Default DefaultStep.
	Step time.Duration
	// MinRate is step 2's capacity search's first rate (step 3's starts
	// at a fifth of it). Default DefaultMinRate.
	MinRate float64
	// Rate is step 2's open-loop rate, the same for every stack (and
	// steps 3 and 4's). Default RateFraction of the lowest capacity found.
	Rate float64
	// RateFraction of the lowest capacity gives Rate. Default
	// DefaultRateFraction.
	RateFraction float64
	// OpenDuration and OpenIterations shape each open-loop run. Defaults
	// DefaultOpenDuration and DefaultOpenIterations.
	OpenDuration   time.Duration
	OpenIterations int
	// Limit is step 3's misconfiguration. Default DefaultLimit. A
	// component no chosen stack runs skips step 3.
	Limit *lab.Limit
	// LadderRounds of step 4's ladders, and each rung's turn per round.
	// Defaults DefaultLadderRounds and ladder.DefaultSlotDuration.
	LadderRounds int
	LadderSlot   time.Duration
	// LabDir is the lab directory. Default lab.DefaultDir(). A lab already
	// running there is used as it is and left running.
	LabDir string
	// Platform is the lab platform the demo starts (lab.KnownPlatforms()).
	// Default: processes.
	Platform string
	// Platforms are the lab platforms the lab may run on (the CLI's).
	Platforms []lab.Platform
	// Stacks are the lab stacks benchmarked (see stacks.Names()). Default
	// 2x and 3x.
	Stacks []string
	// Limits are applied when the demo starts the lab.
	Limits []lab.Limit
	// AuthzTimeout is the 3x gateways' ext_authz timeout in a lab the
	// demo starts (a running lab keeps its own). Default
	// DefaultAuthzTimeout.
	AuthzTimeout time.Duration
	// Keep leaves a lab the demo started running afterwards.
	Keep bool
	// Supervisor is the command that runs the lab in the background.
	// Default: this executable's `lab serve` (see lab.UpOptions).
	Supervisor []string
	// Out is the runs directory. Default store.DefaultRunsDir.
	Out string
	// Sinks take each run and ladder once its run.json is written; the
	// demo's page links each one's ReportFile and summary.md (the CLI's:
	// sinks.Optional(sinks.HTML(ReportFile)) and sinks.Standard). Default
	// none.
	Sinks []runner.Sink
	// Version is recorded in run.json.
	Version string
	// Stdout receives each step's result lines and the verdict; Log
	// receives progress. Defaults discard.
	Stdout, Log io.Writer
}

// Run runs the demo. What was measured before an interruption or a
// failing step is kept (and its page written); the first error is
// returned with the Outcome.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if err := o.complete(); err != nil {
		return nil, err
	}
	stop, err := ensureLab(ctx, &o)
	if err != nil {
		return nil, err
	}
	defer stop()
	d, err := newDemo(ctx, o)
	if err != nil {
		return nil, err
	}
	steps := []struct {
		title string
		run   func(context.Context) ([]string, error)
	}{
		{"the migration reports' comparison (closed loop)", d.closedLoop},
		{"asked properly: capacity under the SLO, latency below it", d.properly},
		{"the migration reports' misconfiguration", d.misconfiguration},
		{"the ladder", d.ladders},
	}
	var first error
	for i, s := range steps {
		if err := d.step(ctx, i+1, s.title, s.run); err != nil {
			first = err
			if errors.Is(err, runner.ErrInterrupted) || ctx.Err() != nil {
				break
			}
		}
	}
	if err := d.page(); err != nil && first == nil {
		first = err
	}
	return d.out, first
}

// step times one step and prints its result lines, the first numbered,
// the last with the step's time; a failure is its result line.
func (d *demo) step(ctx context.Context, n int, title string, run func(context.Context) ([]string, error)) error {
	fmt.Fprintf(d.o.Log, "==> step %d/%d: %s\n", n, totalSteps, title)
	start := time.Now()
	lines, err := run(ctx)
	secs := time.Since(start).Seconds()
	d.out.Steps = append(d.out.Steps, StepTime{N: n, Title: title, Seconds: secs})
	if err != nil {
		lines = append(lines, fmt.Sprintf("%s: failed: %v", title, err))
		err = fmt.Errorf("step %d (%s): %w", n, title, err)
	}
	d.printLines(n, lines, secs)
	return err
}

// printLines prints a step's lines: "n/5 " before the first, the others
// indented, the step's time after the last.
func (d *demo) printLines(n int, lines []string, secs float64) {
	d.printed[n] = lines
	for i, l := range lines {
		prefix := "    "
		if i == 0 {
			prefix = fmt.Sprintf("%d/%d ", n, totalSteps)
		}
		if i == len(lines)-1 {
			l += fmt.Sprintf(" [%.0fs]", secs)
		}
		fmt.Fprintln(d.o.Stdout, prefix+l)
	}
}

// totalSteps counts the steps printed, the page included.
const totalSteps = 5
