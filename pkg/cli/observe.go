package cli

import (
	"context"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// observe attaches resource sampling to a run: authbench itself, the
// plan's components, and the lab's components when a lab is running.
func (o *runOptions) observe(ctx context.Context, ro *runner.Options) error {
	labComps, lab, err := labComponents(o.observeLab, ro.Plan)
	if err != nil {
		return err
	}
	m, err := runner.NewMonitor(ctx, ro.Plan, labComps)
	if err != nil {
		return err
	}
	ro.Monitor, ro.Lab = m, lab
	return nil
}

// labComponents finds the lab to sample: the one named by --observe-lab,
// else the default lab if it is running and the plan points at it.
func labComponents(dir string, p *plan.Plan) ([]observe.LocalComponent, *results.Lab, error) {
	if dir != "" {
		return runner.LabComponents(dir, p, true)
	}
	return runner.LabComponents(lab.DefaultDir(), p, false)
}
