package demo

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/stacks"
)

func TestRateLimitLine(t *testing.T) {
	run := &runner.Outcome{Run: &results.Run{Results: []results.Result{{ThroughputRPS: 6, Latency: results.Latency{P50: 2974}}}}}
	f := &results.Finding{Kind: "client-rate-limit", Component: stacks.KubeAuthProxyOAuth,
		Values: results.Values{"api_calls_per_request": 1, "api_qps": 5, "api_burst": 10, "cap_rps": 5}}
	for _, tc := range []struct {
		name string
		st   *RateLimitStep
		want []string
	}{
		{"finding", &RateLimitStep{Target: "lab-3x-oauth", Rate: 50, Run: run, Finding: f},
			[]string{"lab-3x-oauth with pool tokens at 50 req/s", "6 req/s served", "limit of 5 QPS, burst 10", "cap of 5 uncached req/s", "--authz-api-qps"}},
		{"none", &RateLimitStep{Target: "lab-3x-oauth", Rate: 50, Run: run}, []string{"no client-rate-limit finding"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := rateLimitLine(tc.st)
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("line lacks %q: %s", w, line)
				}
			}
		})
	}
}

// 3x-oauth leaves the comparing steps when another stack runs, and stays
// when it is the only one.
func TestSplitRateLimited(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		keep  int
		split bool
	}{
		{"with others", []string{stacks.Target2x, stacks.Target3xOAuth}, 1, true},
		{"alone", []string{stacks.Target3xOAuth}, 1, false},
		{"without", []string{stacks.Target2x, stacks.Target3x}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &demo{base: &plan.Plan{}, stackOf: map[string]string{}, o: Options{Log: &strings.Builder{}}}
			for _, n := range tc.names {
				d.base.Targets = append(d.base.Targets, plan.Target{Name: n})
				for _, st := range stacks.Names() {
					if stacks.TargetName(st) == n {
						d.stackOf[n] = st
					}
				}
			}
			d.splitRateLimited()
			if len(d.base.Targets) != tc.keep || (d.oauth != nil) != tc.split {
				t.Errorf("kept %d targets, split %v; want %d, %v", len(d.base.Targets), d.oauth != nil, tc.keep, tc.split)
			}
		})
	}
}
