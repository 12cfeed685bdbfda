package ladder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/stacks"
)

// EnvoyAccessLog is where the lab's 3x Envoy writes the
// ladder's log format, relative to the lab directory; when it is absent
// the gateway's own log (the kube lab's pod log, where Envoy writes it) is searched.
const EnvoyAccessLog = "logs/" + stacks.Envoy + "-access.log"

// LabOptions prepares a ladder on one stack ("2x" or "3x") of the running
// lab in dir (default lab.DefaultDir()) on one of platforms: the target, rungs, token and CA
// of the lab's scenario, the ext_authz layers by their role, the gateway's
// log, and the lab's record for run.json. Options.Plan is the lab's
// scenario, its target the stack's.
func LabOptions(ctx context.Context, dir, stack string, platforms ...lab.Platform) (Options, error) {
	name := stacks.TargetName(stack)
	if name == "" {
		return Options{}, fmt.Errorf("unknown stack %q: want %s", stack, strings.Join(stacks.Names(), ", "))
	}
	if dir == "" {
		dir = lab.DefaultDir()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Options{}, fmt.Errorf("resolving lab dir %s: %w", dir, err)
	}
	l := lab.Open(abs, platforms...)
	data, err := l.Scenario(ctx)
	if err != nil {
		return Options{}, err
	}
	st, err := l.State(ctx)
	if err != nil {
		return Options{}, err
	}
	p, err := scenario.Parse(filepath.Join(abs, lab.ScenarioFile), data)
	if err != nil {
		return Options{}, fmt.Errorf("reading the lab's scenario: %w", err)
	}
	t, err := FindTarget(p, name)
	if err != nil {
		return Options{}, fmt.Errorf("the lab in %s does not run stack %s (start it with `authbench lab up --stack %s`): %w", abs, stack, stack, err)
	}
	// The scenario's requests, duration and rate describe its runs, not
	// the ladder's turns: those take the ladder's defaults.
	p.Load.Requests, p.Load.Duration, p.Load.Rate = 0, 0, 0
	for _, f := range []string{plan.FieldRequests, plan.FieldDuration, plan.FieldRate} {
		delete(p.Given, f)
	}
	o := Options{Plan: p, Target: t.Name, Stack: stack, Lab: st.Record(), ExtAuthz: []string{}}
	for _, layer := range t.Layers {
		if c, ok := st.Component(layer); ok && c.Role == "ext-authz" {
			o.ExtAuthz = append(o.ExtAuthz, layer)
		}
	}
	if len(t.Layers) > 0 {
		if c, ok := st.Component(t.Layers[0]); ok {
			o.Gateway = &GatewayLog{Path: c.Log, Gateway: c.Name}
			if access := filepath.Join(abs, "logs", c.Name+"-access.log"); c.Program == stacks.ProgramEnvoy && exists(access) {
				o.Gateway.Path = access
			}
		}
	}
	return o, nil
}

// FindTarget returns the named target of p; with no name, the only
// target that has rungs.
func FindTarget(p *plan.Plan, name string) (plan.Target, error) {
	var withRungs []plan.Target
	for _, t := range p.Targets {
		if name != "" && t.Name == name {
			return t, nil
		}
		if len(t.Rungs) > 0 {
			withRungs = append(withRungs, t)
		}
	}
	switch {
	case name != "":
		return plan.Target{}, fmt.Errorf("no target %q", name)
	case len(withRungs) == 1:
		return withRungs[0], nil
	case len(withRungs) == 0:
		return plan.Target{}, fmt.Errorf("no target has rungs (list each layer's entry point under rungs:)")
	}
	var names []string
	for _, t := range withRungs {
		names = append(names, t.Name)
	}
	return plan.Target{}, fmt.Errorf("several targets have rungs (%v): choose one with --target", names)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
