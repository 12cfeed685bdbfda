package demo

import (
	"io"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
	"github.com/authbench/authbench/pkg/store"
)

// complete applies the defaults and rejects what cannot run, before the
// lab starts.
func (o *Options) complete() error {
	if o.Requests == 0 {
		o.Requests = lab.ScenarioRequests
	}
	if o.Concurrency == 0 {
		o.Concurrency = lab.ScenarioConcurrency
	}
	if o.Iterations == 0 {
		o.Iterations = lab.ScenarioIterations
	}
	if o.Warmup == 0 {
		o.Warmup = max(o.Requests/10, int64(o.Concurrency))
	}
	if err := o.completeSteps(); err != nil {
		return err
	}
	if o.LabDir == "" {
		o.LabDir = lab.DefaultDir()
	}
	if len(o.Stacks) == 0 {
		o.Stacks = []string{stacks.Stack2x, stacks.Stack3x}
	}
	stacks, err := stacks.Parse(o.Stacks)
	if err != nil {
		return err
	}
	o.Stacks = stacks
	if o.Out == "" {
		o.Out = store.DefaultRunsDir
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return nil
}

// completeSteps applies the defaults of steps 2 to 4.
func (o *Options) completeSteps() error {
	if o.SLO == nil {
		slo, _, err := plan.ParseSLO(DefaultSLO)
		if err != nil {
			return err
		}
		o.SLO = slo
	}
	if o.CapacityBudget == 0 {
		o.CapacityBudget = DefaultCapacityBudget
	}
	if o.MinRate == 0 {
		o.MinRate = DefaultMinRate
	}
	if o.Step == 0 {
		o.Step = DefaultStep
	}
	if o.RateFraction == 0 {
		o.RateFraction = DefaultRateFraction
	}
	if o.OpenDuration == 0 {
		o.OpenDuration = DefaultOpenDuration
	}
	if o.OpenIterations == 0 {
		o.OpenIterations = DefaultOpenIterations
	}
	if o.LadderRounds == 0 {
		o.LadderRounds = DefaultLadderRounds
	}
	if o.AuthzTimeout == 0 {
		o.AuthzTimeout = DefaultAuthzTimeout
	}
	if o.Limit == nil {
		l, err := lab.ParseLimit(DefaultLimit)
		if err != nil {
			return err
		}
		o.Limit = &l
	}
	return nil
}
