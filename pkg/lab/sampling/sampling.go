// Package sampling says what a run samples: authbench itself, the plan's
// components, and the lab the run targets (its processes' cgroups, its
// audit log's reviews). It is the lab's side of a run, wired by the CLI
// into the runner's options, so that the runner itself knows no lab.
package sampling

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// Options say what a run samples besides authbench itself and the
// plan's components.
type Options struct {
	// LabDir names the lab to sample; a lab that is not up there is an
	// error. Default "": the plan's Lab, else the default lab directory,
	// each sampled only if it is up and the targets point at it.
	LabDir string
	// DefaultLabDir is the default lab directory. Default lab.DefaultDir().
	DefaultLabDir string
	// Platforms are the lab platforms a lab may run on (the CLI's).
	// Default none: no lab is sampled.
	Platforms []lab.Platform
}

// Observation is what a run samples, for runner.Options (or Common).
type Observation struct {
	Monitor *observe.Monitor
	// Lab is the observed lab's record for run.json (nil: none).
	Lab *results.Lab
	// Unobserved is a lab the plan names that could not be sampled.
	Unobserved *results.UnobservedLab
	// Reviews counts the observed lab's API server reviews from its audit
	// log (nil: no lab observed).
	Reviews observe.ReviewCounter
	// Gateways read the observed lab's gateways' own metrics, by the
	// target they serve (nil: none known).
	Gateways observe.GatewayReaders
	// Faults reads the observed lab's fault log for a run's window
	// (runner.FaultLog; nil: no lab observed).
	Faults func(start, end time.Time) ([]results.FaultEvent, error)
}

// Observe builds a run's sampling: authbench itself (always, so a
// bottlenecked load generator is seen), the plan's local components, the
// lab the run targets, and the plan's Prometheus components. The lab is
// the one named by o.LabDir, else by the plan (a scenario printed for a
// lab names it), else the default one.
func Observe(ctx context.Context, p *plan.Plan, o Options) (*Observation, error) {
	dir, explicit := o.LabDir, o.LabDir != ""
	if dir == "" {
		dir = p.Lab
	}
	if dir == "" {
		dir = o.DefaultLabDir
		if dir == "" {
			dir = lab.DefaultDir()
		}
	}
	comps, rec, err := LabComponents(ctx, dir, p, explicit, o.Platforms...)
	if err != nil {
		return nil, err
	}
	obs := &Observation{Lab: rec}
	if rec != nil {
		obs.Reviews = labReviews(ctx, dir)
		obs.Gateways = LabGateways(ctx, dir, o.Platforms...)
		obs.Faults = LabFaults(dir)
	}
	if rec == nil && !explicit && p.Lab != "" {
		obs.Unobserved = &results.UnobservedLab{Dir: p.Lab, Reason: "the scenario names it, but it is not running or its targets are not the lab's"}
	}
	if obs.Monitor, err = NewMonitor(ctx, p, comps); err != nil {
		return nil, err
	}
	return obs, nil
}

// LabComponents returns the components of the lab in dir for sampling, and
// the lab's record for run.json. When explicit is false, a lab that is not
// running, or that none of the plan's targets points at, yields nothing:
// sampling a lab that the load never touches would only add noise.
func LabComponents(ctx context.Context, dir string, p *plan.Plan, explicit bool, platforms ...lab.Platform) ([]observe.LocalComponent, *results.Lab, error) {
	st, err := lab.Open(dir, platforms...).State(ctx) // the lab's state, if it is up and ready
	if err != nil {
		// Unless asked for, a lab that is absent, stopping or broken is
		// simply not part of this run.
		if !explicit {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("observing the lab in %s: %w", dir, err)
	}
	if !explicit && !targetsLab(p, st) {
		return nil, nil, nil
	}
	targeted := targetStacks(p, st)
	var comps []observe.LocalComponent
	for _, c := range st.Components {
		if len(targeted) > 0 && c.Stack != stacks.Shared && !targeted[c.Stack] {
			continue
		}
		if c.Cgroup == "" && c.PID == 0 {
			continue // a kube lab's pod: sampled through the lab's Prometheus
		}
		comps = append(comps, observe.LocalComponent{Name: c.Name, Role: c.Role, Cgroup: c.Cgroup, PID: c.PID})
	}
	return comps, st.Record(), nil
}

// NewMonitor builds the resource monitor for a plan: authbench itself,
// the plan's local components, extra ones (a lab's), and the plan's
// Prometheus components.
func NewMonitor(ctx context.Context, p *plan.Plan, extra []observe.LocalComponent) (*observe.Monitor, error) {
	local := append([]observe.LocalComponent{observe.Self()}, observe.FromPlan(p.Observe)...)
	local = append(local, extra...)
	ls, err := observe.NewLocal(local, observe.LocalOptions{})
	if err != nil {
		return nil, fmt.Errorf("preparing local sampler: %w", err)
	}
	samplers := []observe.Sampler{ls}
	if p.Prometheus != nil {
		ps, err := observe.NewPrometheusFromPlan(ctx, p.Prometheus, p.Observe)
		if err != nil {
			return nil, fmt.Errorf("preparing prometheus sampler: %w", err)
		}
		samplers = append(samplers, ps)
	}
	interval := p.SampleInterval.D()
	if interval <= 0 {
		interval = observe.DefaultInterval
	}
	return observe.NewMonitor(samplers, interval), nil
}

// targetStacks names the lab stacks the plan's targets enter, so that a
// run against one stack does not report the other stack's idle processes.
// An empty set means none could be told apart: sample everything.
func targetStacks(p *plan.Plan, st *lab.State) map[string]bool {
	stacks := map[string]bool{}
	for _, t := range p.Targets {
		for _, s := range st.Targets {
			if sameHost(t.URL, s.URL) {
				stacks[s.Stack] = true
			}
		}
	}
	return stacks
}

func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host == ub.Host
}

// targetsLab reports whether any target (or rung) is served by the lab.
func targetsLab(p *plan.Plan, st *lab.State) bool {
	hosts := map[string]bool{}
	for _, c := range st.Components {
		if u, err := url.Parse(c.URL); err == nil {
			hosts[u.Host] = true
		}
	}
	for _, t := range st.Targets {
		if u, err := url.Parse(t.URL); err == nil {
			hosts[u.Host] = true
		}
	}
	for _, t := range p.Targets {
		if u, err := url.Parse(t.URL); err == nil && hosts[u.Host] {
			return true
		}
	}
	return false
}

// labReviews is the lab's review counter, read once here so that the
// first recorded phase does not parse the audit log's history. A lab
// without the log (a platform that keeps none) counts nothing.
func labReviews(ctx context.Context, dir string) observe.ReviewCounter {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	c := observe.NewAuditReviews(filepath.Join(abs, lab.AuditLog))
	if _, err := c.Read(ctx); err != nil {
		return nil
	}
	return c
}

// LabFaults reads the lab's fault log in dir for a run's window: the
// faults set or cleared from start to end, and those in force at start.
func LabFaults(dir string) func(start, end time.Time) ([]results.FaultEvent, error) {
	return func(start, end time.Time) ([]results.FaultEvent, error) {
		evs, err := lab.ReadFaults(dir)
		if err != nil {
			return nil, err
		}
		return lab.FaultsDuring(evs, start, end), nil
	}
}
