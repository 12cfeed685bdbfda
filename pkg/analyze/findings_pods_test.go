package analyze

import (
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func TestPodFindings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pods  results.PodExecution
		kinds []string
	}{
		{"healthy", results.PodExecution{Asked: 2, Coverage: results.Coverage{Pods: 2}, Pods: []results.PodStat{
			{Name: "a", Seconds: 10, CPUSeconds: 2, CPULimit: 1, Periods: 100, ThrottledPeriods: 1}}}, nil},
		{"throttled", results.PodExecution{Asked: 1, Coverage: results.Coverage{Pods: 1}, Pods: []results.PodStat{
			{Name: "a", Seconds: 10, CPUSeconds: 2, CPULimit: 1, Periods: 100, ThrottledPeriods: 30}}}, []string{KindGeneratorBound}},
		{"near its limit", results.PodExecution{Asked: 1, Coverage: results.Coverage{Pods: 1}, Pods: []results.PodStat{
			{Name: "a", Seconds: 10, CPUSeconds: 4.7, CPULimit: 0.5}}}, []string{KindGeneratorBound}},
		{"partial", results.PodExecution{Asked: 3, Coverage: results.Coverage{Pods: 2, Requests: 10}}, []string{KindPodsPartial}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := tc.pods
			fs := podFindings("t", []results.Result{{Iteration: 1, Pods: &pe}})
			var kinds []string
			for _, f := range fs {
				kinds = append(kinds, f.Kind)
			}
			if len(kinds) != len(tc.kinds) || (len(kinds) > 0 && kinds[0] != tc.kinds[0]) {
				t.Errorf("findings %v, want %v", kinds, tc.kinds)
			}
		})
	}
}
