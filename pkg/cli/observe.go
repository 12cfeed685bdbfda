package cli

import (
	"context"

	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/runner"
)

// observe attaches resource sampling to a run (sampling.Observe): authbench
// itself, the plan's components, and the lab --lab-dir or the plan
// names, else the default lab when it is running and the plan points at it.
func (o *runOptions) observe(ctx context.Context, ro *runner.Options) error {
	obs, err := sampling.Observe(ctx, ro.Plan, sampling.Options{LabDir: o.labDir, Platforms: labPlatforms()})
	if err != nil {
		return err
	}
	ro.Monitor, ro.Lab, ro.Unobserved, ro.Reviews, ro.Gateways, ro.Faults = obs.Monitor, obs.Lab, obs.Unobserved, obs.Reviews, obs.Gateways, obs.Faults
	return nil
}
