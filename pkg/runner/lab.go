package runner

import (
	"net/url"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// LabComponents returns the components of the lab in dir for sampling, and
// the lab's record for run.json. When explicit is false, a lab that is not
// running, or that none of the plan's targets points at, yields nothing:
// sampling a lab that the load never touches would only add noise.
func LabComponents(dir string, p *plan.Plan, explicit bool) ([]observe.LocalComponent, *results.Lab, error) {
	st, err := lab.Open(dir).State() // the lab's state, if it is up and ready
	if err != nil {
		// Unless asked for, a lab that is absent, stopping or broken is
		// simply not part of this run.
		if !explicit {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	if !explicit && !targetsLab(p, st) {
		return nil, nil, nil
	}
	stacks := targetStacks(p, st)
	var comps []observe.LocalComponent
	for _, c := range st.Components {
		if len(stacks) > 0 && c.Stack != lab.StackShared && !stacks[c.Stack] {
			continue
		}
		if c.Cgroup == "" && c.PID == 0 {
			continue // a kube lab's pod: sampled through the lab's Prometheus
		}
		comps = append(comps, observe.LocalComponent{Name: c.Name, Role: c.Role, Cgroup: c.Cgroup, PID: c.PID})
	}
	return comps, st.Record(), nil
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
