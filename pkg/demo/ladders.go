package demo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/ladder"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// LadderRateFraction of step 2's rate is step 4's.
const LadderRateFraction = 0.5

// ladders is step 4: each stack's ladder at half step 2's rate (or the
// ladder's own rate when step 2 found none), one line per stack.
func (d *demo) ladders(ctx context.Context) ([]string, error) {
	var lines []string
	var errs []error
	for _, t := range d.base.Targets {
		out, err := d.ladder(ctx, d.stackOf[t.Name])
		if out != nil && out.Ladder != nil {
			d.out.Ladders = append(d.out.Ladders, out)
			lines = append(lines, ladderLine(out.Ladder))
		}
		if err != nil {
			errs = append(errs, err)
			if errors.Is(err, runner.ErrInterrupted) || ctx.Err() != nil {
				break
			}
		}
	}
	return lines, errors.Join(errs...)
}

// ladder measures one stack's ladder through the one orchestrator,
// sampling the lab.
func (d *demo) ladder(ctx context.Context, stack string) (*ladder.Outcome, error) {
	lo, err := ladder.LabOptions(ctx, d.o.LabDir, stack, d.o.Platforms...)
	if err != nil {
		return nil, err
	}
	obs, err := sampling.Observe(ctx, &plan.Plan{Targets: lo.Plan.Targets}, sampling.Options{LabDir: d.o.LabDir, Platforms: d.o.Platforms})
	if err != nil {
		return nil, err
	}
	lo.Monitor, lo.Lab, lo.Reviews, lo.Gateways, lo.Faults = obs.Monitor, obs.Lab, obs.Reviews, obs.Gateways, obs.Faults
	lo.Rounds, lo.Out, lo.Version, lo.Log, lo.Sinks = d.o.LadderRounds, d.o.Out, d.o.Version, d.o.Log, d.o.Sinks
	lo.Name, lo.CommandLine = "demo-ladder-"+lo.Target, []string{"authbench", "demo"}
	l := &lo.Plan.Load
	l.Concurrency, l.Duration = d.o.Concurrency, plan.Duration(d.o.LadderSlot)
	if p := d.out.Properly; p != nil && p.Rate > 0 {
		// Half the common rate: every rung, the gateway's included, then
		// serves far below its knee, so what a layer adds is service
		// time, not a queue that noise on a shared host tips over.
		l.Rate = roundSig(p.Rate*LadderRateFraction, 2)
	}
	return ladder.Run(ctx, lo)
}

// ladderLine is where one stack's P50 goes: each layer's added P50 from
// the client inwards, and the end-to-end figure.
func ladderLine(l *results.Ladder) string {
	var parts []string
	for _, layer := range l.Layers {
		parts = append(parts, fmt.Sprintf("%s %+.2g", layer.Name, layer.AddedMs.P50))
	}
	line := fmt.Sprintf("Ladder %s at %s req/s, P50 %s end to end: %s ms", l.Target, rps(l.RateRPS),
		ms(l.TotalMs.P50), strings.Join(parts, ", "))
	if l.Bottleneck != "" {
		line += "; bottleneck " + l.Bottleneck
	}
	return line + "."
}
