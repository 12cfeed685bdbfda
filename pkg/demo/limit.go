package demo

import (
	"context"
	"errors"
	"fmt"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
)

// misconfiguration is step 3: the migration reports' CPU limit on the auth
// proxy, set on the running lab; the stack serving it at step 2's rate, the
// throttling finding, its capacity under the limit; then the limit lifted and
// the same rate again; and, when the demo runs 3x-oauth, its ext_authz
// service's client-side rate limit with pool tokens.
func (d *demo) misconfiguration(ctx context.Context) ([]string, error) {
	lines, err := d.cpuLimit(ctx)
	if err != nil {
		return lines, err
	}
	more, err := d.rateLimit(ctx)
	return append(lines, more...), err
}

// cpuLimit is step 3's CPU limit, set and lifted.
func (d *demo) cpuLimit(ctx context.Context) ([]string, error) {
	lim := *d.o.Limit
	t, stack, err := d.limitedTarget(ctx, lim.Component)
	if err != nil || t == nil {
		return []string{fmt.Sprintf("Skipped: %v", err)}, nil
	}
	if d.out.Properly == nil || d.out.Properly.Rate <= 0 {
		return nil, errors.New("step 2 found no rate to run at")
	}
	st := &LimitStep{Limit: lim, Stack: stack, Target: t.Name, Rate: d.out.Properly.Rate}
	d.out.Limit = st
	l := openLab(d.o)
	if err := l.SetLimit(ctx, lim); err != nil {
		return nil, fmt.Errorf("limiting %s: %w", lim.Component, err)
	}
	lifted := false
	lift := func() error {
		lifted = true
		return l.SetLimit(context.WithoutCancel(ctx), lab.Limit{Component: lim.Component})
	}
	defer func() {
		if !lifted {
			if err := lift(); err != nil {
				fmt.Fprintf(d.o.Log, "warning: lifting the limit on %s: %v\n", lim.Component, err)
			}
		}
	}()
	lines, err := d.limited(ctx, st, t)
	if err != nil {
		return lines, err
	}
	if err := lift(); err != nil {
		return lines, fmt.Errorf("lifting the limit on %s: %w", lim.Component, err)
	}
	r, err := d.run(ctx, d.subPlan("limit-lifted", []plan.Target{*t}, d.openLoad(d.out.Properly.Rate)))
	st.Lifted = r
	if r != nil {
		lines = append(lines, recoveryLine(st))
		if l := liftedAuthzLine(st); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, err
}

// limited measures the limited stack at step 2's rate, then its capacity.
func (d *demo) limited(ctx context.Context, st *LimitStep, t *plan.Target) ([]string, error) {
	r, err := d.run(ctx, d.subPlan("limited", []plan.Target{*t}, d.openLoad(d.out.Properly.Rate)))
	st.Limited = r
	if r == nil {
		return nil, err
	}
	if fs := findingsOf(r.Run, analyze.KindCPUThrottling, st.Limit.Component); len(fs) > 0 {
		st.Throttling = &fs[0]
	}
	for _, f := range findingsOf(r.Run, analyze.KindGatewayAuthzErrors, "") {
		if f.Target == st.Target {
			st.AuthzErrors = &f
			break
		}
	}
	if err != nil {
		return limitedLines(st, d.out.Properly), err
	}
	budget := d.o.CapacityBudget / 2
	st.Capacity, err = d.capacity(ctx, d.subPlan("capacity-limited", []plan.Target{*t}, d.openLoad(0)), d.o.MinRate/5, budget)
	return limitedLines(st, d.out.Properly), err
}

// limitedLines are the collapse and, through a gateway, its own 403s.
func limitedLines(st *LimitStep, before *ProperStep) []string {
	lines := []string{collapseLine(st, before)}
	if l := authzLine(st); l != "" {
		lines = append(lines, l)
	}
	return lines
}

// limitedTarget is the chosen stack whose components include component.
func (d *demo) limitedTarget(ctx context.Context, component string) (*plan.Target, string, error) {
	cs, err := openLab(d.o).Components(ctx)
	if err != nil {
		return nil, "", err
	}
	for _, c := range cs {
		if c.Name != component {
			continue
		}
		for i, t := range d.base.Targets {
			if d.stackOf[t.Name] == c.Stack {
				return &d.base.Targets[i], c.Stack, nil
			}
		}
	}
	return nil, "", fmt.Errorf("no stack of this demo runs %s", component)
}

// collapseLine: the limited stack at step 2's rate against itself there,
// the throttling finding, and its capacity under the limit.
func collapseLine(st *LimitStep, before *ProperStep) string {
	line := fmt.Sprintf("%s limited to %s CPU: at %s req/s %s %s", st.Limit.Component, st.Limit.String(),
		rps(before.Rate), st.Target, openFigures(st.Limited, st.Target))
	if b := targetOf(before.Open, st.Target); b != nil {
		line += fmt.Sprintf(" (unlimited in step 2: P99 %s)", ms(b.P99))
	}
	line += "; "
	if st.Throttling != nil {
		line += fmt.Sprintf("finding %s names %s (throttled in %s of its CPU periods)", st.Throttling.Kind,
			st.Throttling.Component, pct(st.Throttling.Values["throttled_ratio"]))
	} else {
		line += "no throttling finding named " + st.Limit.Component
	}
	if st.Capacity != nil && len(st.Capacity.Searches) > 0 && before.Capacity != nil {
		now := st.Capacity.Searches[0]
		line += fmt.Sprintf("; capacity %s", capacityText(now))
		for _, r := range before.Capacity.Searches {
			if r.Target == st.Target {
				line += fmt.Sprintf(", without it %s", capacityText(r))
			}
		}
	}
	return line + "."
}

// recoveryLine: the same rate once the limit is lifted.
func recoveryLine(st *LimitStep) string {
	line := fmt.Sprintf("Limit lifted: at the same rate %s %s", st.Target, openFigures(st.Lifted, st.Target))
	if l := targetOf(st.Limited, st.Target); l != nil {
		line += fmt.Sprintf(" (limited: P99 %s, success %s)", ms(l.P99), pct(l.success))
	}
	return line + "."
}

// openFigures are a target's P99, achieved share of the rate, success
// rate and SLO verdict in an open-loop run.
func openFigures(r *runner.Outcome, target string) string {
	l := targetOf(r, target)
	if l == nil {
		return "was not measured"
	}
	s := fmt.Sprintf("P99 %s, %s of the rate sent, success %s", ms(l.P99), pct(l.sent), pct(l.success))
	if ok, known := sloMet(r, target); known && ok {
		s += ", SLO met"
	} else if known {
		s += ", SLO missed"
	}
	return s
}
