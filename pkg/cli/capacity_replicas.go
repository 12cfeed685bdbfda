package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/stacks"
)

// scaleStepsValue is capacity's --replicas COMPONENT=N[,N...].
type scaleStepsValue struct{ steps *stacks.ScaleSteps }

func (v *scaleStepsValue) String() string {
	if v.steps == nil {
		return ""
	}
	parts := make([]string, len(v.steps.Replicas))
	for i, n := range v.steps.Replicas {
		parts[i] = fmt.Sprint(n)
	}
	return v.steps.Component + "=" + strings.Join(parts, ",")
}
func (v *scaleStepsValue) Type() string { return "COMPONENT=N[,N...]" }
func (v *scaleStepsValue) Set(s string) error {
	st, err := stacks.ParseScaleSteps(s)
	if err != nil {
		return err
	}
	v.steps = &st
	return nil
}

// labScaling wires `capacity --replicas` to the plan's lab: it applies the
// per-replica limits, gives the runner a function that scales the
// component, and returns a function that puts the lab back as it was
// (replicas and limits), which the caller defers.
func labScaling(ctx context.Context, dir string, steps stacks.ScaleSteps, limits []lab.Limit) (*runner.ScaleSteps, func(), error) {
	if dir == "" {
		return nil, nil, fmt.Errorf("--replicas scales a lab component: give a lab scenario (authbench lab scenario) or --lab-dir")
	}
	l := openLab(dir)
	before, err := l.State(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("--replicas: %w", err)
	}
	if _, ok := before.Component(steps.Component); !ok {
		return nil, nil, fmt.Errorf("--replicas: the lab in %s does not run %s", l.Dir(), steps.Component)
	}
	was := before.Replicas(steps.Component)
	var undoLimits []lab.Limit
	for _, x := range limits {
		c, ok := before.Component(x.Component)
		if !ok {
			return nil, nil, fmt.Errorf("--limit %s: the lab in %s does not run it", x.Component, l.Dir())
		}
		prev, _ := lab.ParseLimit(c.Name + "=" + orNone(c.Limit))
		undoLimits = append(undoLimits, prev)
	}
	if len(limits) > 0 {
		if err := l.SetLimit(ctx, limits...); err != nil {
			return nil, nil, err
		}
	}
	restore := func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		_ = l.Scale(rctx, stacks.Scale{Component: steps.Component, Replicas: was})
		if len(undoLimits) > 0 {
			_ = l.SetLimit(rctx, undoLimits...)
		}
	}
	sampled := map[string]bool{}
	for _, c := range before.Components {
		sampled[c.Name] = true
	}
	sc := &runner.ScaleSteps{Component: steps.Component, Replicas: steps.Replicas, Limit: limitOf(limits, steps.Component),
		Apply: func(ctx context.Context, n int) ([]observe.LocalComponent, error) {
			if err := l.Scale(ctx, stacks.Scale{Component: steps.Component, Replicas: n}); err != nil {
				return nil, err
			}
			return newReplicas(ctx, l, sampled)
		}}
	return sc, restore, nil
}

// newReplicas lists the lab's replicas not sampled yet, and marks them.
func newReplicas(ctx context.Context, l *lab.Lab, sampled map[string]bool) ([]observe.LocalComponent, error) {
	st, err := l.State(ctx)
	if err != nil {
		return nil, err
	}
	var out []observe.LocalComponent
	for _, c := range st.Components {
		if c.ReplicaOf == "" || sampled[c.Name] || (c.Cgroup == "" && c.PID == 0) {
			continue
		}
		sampled[c.Name] = true
		out = append(out, observe.LocalComponent{Name: c.Name, Role: c.Role, Cgroup: c.Cgroup, PID: c.PID})
	}
	return out, nil
}

// limitOf is the limit given for component, as its value ("" for none).
func limitOf(limits []lab.Limit, component string) string {
	for _, x := range limits {
		if x.Component == component {
			return x.String()
		}
	}
	return ""
}
