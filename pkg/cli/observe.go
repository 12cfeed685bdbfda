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
	labComps, lab, err := labComponents(o.labDir, ro.Plan)
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

// labComponents finds the lab to sample: the one named by --lab-dir
// (which must be running), else the scenario's lab or the default lab if
// it is running and the plan points at it.
func labComponents(flagDir string, p *plan.Plan) ([]observe.LocalComponent, *results.Lab, error) {
	if flagDir != "" {
		return runner.LabComponents(flagDir, p, true)
	}
	if p.Lab != "" {
		return runner.LabComponents(p.Lab, p, false)
	}
	return runner.LabComponents(lab.DefaultDir(), p, false)
}
