package pods

import (
	"fmt"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// RoleGenerator is the observe role of the load generator pods.
const RoleGenerator = results.RoleLoadGenerator

// agentContainer is the generator pods' one container.
const agentContainer = "agent"

// Components are the generator pods as observe components, one per index,
// for a Prometheus sampler to read their cAdvisor metrics (CPU, memory,
// quota, throttling) beside the target's. Each is named after the Job and
// its index ("authbench-1a2b3c4d-0"), the prefix of its pod's name: an
// Indexed Job names its pods <job>-<index>-<suffix>.
func (e *Executor) Components() []plan.Component {
	out := make([]plan.Component, e.o.Pods)
	for i := range out {
		name := fmt.Sprintf("%s-%d", e.name, i)
		out[i] = plan.Component{Name: name, Role: RoleGenerator, Namespace: e.o.Namespace.String(),
			Pod: name + "-.*", Container: agentContainer}
	}
	return out
}
