package demo

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/stacks"
)

// openLab is the demo's lab on the platforms it was given.
func openLab(o Options) *lab.Lab { return lab.Open(o.LabDir, o.Platforms...) }

// ensureLab starts the lab unless one is running, and returns how to stop
// what it started.
func ensureLab(ctx context.Context, o *Options) (stop func(), err error) {
	if _, err := openLab(*o).Components(ctx); err == nil {
		fmt.Fprintf(o.Log, "==> using the lab already running in %s\n", o.LabDir)
		return func() {}, nil
	}
	fmt.Fprintf(o.Log, "==> starting the lab (stacks %s) in %s\n", strings.Join(o.Stacks, ", "), o.LabDir)
	start := time.Now()
	cfg := lab.Config{Platform: o.Platform, Stacks: o.Stacks, Limits: o.Limits, AuthzTimeout: o.AuthzTimeout}
	if slices.Contains(o.Stacks, stacks.Stack3xOAuth) {
		cfg.TokenPool = demoTokenPool // step 3's 3x-oauth run sends each token once
	}
	if _, err := openLab(*o).Up(ctx, lab.UpOptions{Config: cfg, Out: o.Log, Supervisor: o.Supervisor}); err != nil {
		return nil, fmt.Errorf("starting the lab: %w", err)
	}
	fmt.Fprintf(o.Log, "==> lab ready in %.1fs\n", time.Since(start).Seconds())
	if o.Keep {
		return func() {}, nil
	}
	return func() {
		fmt.Fprintln(o.Log, "==> stopping the lab")
		if err := openLab(*o).Down(context.WithoutCancel(ctx), o.Log); err != nil {
			fmt.Fprintf(o.Log, "warning: stopping the lab: %v\n", err)
		}
	}, nil
}

// labPlan is the running lab's scenario, its targets the chosen stacks'
// in their order, and the stack of each target.
func labPlan(ctx context.Context, o Options) (*plan.Plan, map[string]string, error) {
	y, err := openLab(o).Scenario(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the lab's scenario: %w", err)
	}
	p, err := scenario.Parse(filepath.Join(o.LabDir, lab.ScenarioFile), y)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing the lab's scenario: %w", err)
	}
	var targets []plan.Target
	stackOf := map[string]string{}
	for _, st := range o.Stacks {
		for _, t := range p.Targets {
			if t.Name == stacks.TargetName(st) {
				targets = append(targets, t)
				stackOf[t.Name] = st
			}
		}
	}
	if len(targets) == 0 {
		return nil, nil, fmt.Errorf("the lab in %s runs none of the stacks %s", o.LabDir, strings.Join(o.Stacks, ", "))
	}
	p.Targets = targets
	return p, stackOf, nil
}
