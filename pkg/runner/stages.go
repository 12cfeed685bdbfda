package runner

import (
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/results"
)

// stageUsage fills each stage's component usage from the samples over
// its window, without the per-second samples the result already holds.
func stageUsage(m *observe.Monitor, stages []results.Stage) {
	for i := range stages {
		st := &stages[i]
		if !st.End.After(st.Start) {
			continue // a stage an interrupted run never reached
		}
		st.Components = m.Usage(st.Start, st.End, st.Requests)
		for j := range st.Components {
			st.Components[j].Samples = nil
		}
	}
}
