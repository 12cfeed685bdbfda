package analyze

import (
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func TestPodFindings(t *testing.T) {
	gen := func(name string, periods, throttled int64) []results.ComponentUsage {
		return []results.ComponentUsage{{Name: name, Role: results.RoleLoadGenerator, Source: "prometheus",
			CPUMean: 0.19, CPULimit: 0.2, Periods: periods, ThrottledPeriods: throttled}}
	}
	for _, tc := range []struct {
		name  string
		pods  results.PodExecution
		comps []results.ComponentUsage
		kinds []string
	}{
		{"healthy", results.PodExecution{Asked: 2, Coverage: results.Coverage{Pods: 2}, Pods: []results.PodStat{
			{Name: "a", Seconds: 10, CPUSeconds: 2, CPULimit: 1, Periods: 100, ThrottledPeriods: 1}}}, nil, nil},
		{"throttled", results.PodExecution{Asked: 1, Coverage: results.Coverage{Pods: 1}, Pods: []results.PodStat{
			{Name: "a", Seconds: 10, CPUSeconds: 2, CPULimit: 1, Periods: 100, ThrottledPeriods: 30}}}, nil, []string{KindGeneratorBound}},
		{"near its limit", results.PodExecution{Asked: 1, Coverage: results.Coverage{Pods: 1}, Pods: []results.PodStat{
			{Name: "a", Seconds: 10, CPUSeconds: 4.7, CPULimit: 0.5}}}, nil, []string{KindGeneratorBound}},
		{"partial", results.PodExecution{Asked: 3, Coverage: results.Coverage{Pods: 2, Requests: 10}}, nil, []string{KindPodsPartial}},
		{"throttled by cAdvisor's counters", results.PodExecution{Asked: 1, Coverage: results.Coverage{Pods: 1}, Pods: []results.PodStat{
			{Name: "job-0-x1", Seconds: 10}}}, gen("job-0", 100, 40), []string{KindGeneratorBound}},
		{"cAdvisor's counters of another pod", results.PodExecution{Asked: 1, Coverage: results.Coverage{Pods: 1}, Pods: []results.PodStat{
			{Name: "job-10-x1", Seconds: 10}}}, gen("job-1", 100, 40), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := tc.pods
			fs := podFindings("t", []results.Result{{Iteration: 1, Pods: &pe, Components: tc.comps}})
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
