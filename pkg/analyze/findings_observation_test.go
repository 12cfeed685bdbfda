package analyze

import (
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func TestObservationFindings(t *testing.T) {
	lab := &results.Lab{Dir: "/lab", Components: []results.LabComponent{{Name: "nginx"}}}
	sampled := []results.ComponentUsage{{Name: "nginx", CPUMean: 0.2}}
	tests := []struct {
		name string
		run  results.Run
		want bool
	}{
		{"plan names an unobserved lab", results.Run{UnobservedLab: &results.UnobservedLab{Dir: "/lab", Reason: "not running"},
			Results: []results.Result{{Target: "t"}}}, true},
		{"lab observed and sampled", results.Run{Lab: lab, Results: []results.Result{{Target: "t", Components: sampled}}}, false},
		{"lab observed, nothing sampled", results.Run{Lab: lab, Results: []results.Result{{Target: "t"}}}, true},
		{"no lab", results.Run{Results: []results.Result{{Target: "t"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hasKind(Diagnose(&tt.run, nil), KindLabNotObserved)
			if got != tt.want {
				t.Errorf("lab-not-observed finding = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSendLagFinding(t *testing.T) {
	res := func(lagP99, latP99 float64) results.Result {
		r := results.Result{Target: "t", Iteration: 1, Requests: 100, Successes: 100}
		r.Latency.P99 = latP99
		r.SendLag = &results.Lag{P50Ms: lagP99 / 2, P99Ms: lagP99, MaxMs: lagP99 * 2}
		return r
	}
	tests := []struct {
		name string
		r    results.Result
		want bool
	}{
		{"lag well below the share", res(SendLagShare*10/2, 10), false},
		{"lag above the share", res(SendLagShare*10*2, 10), true},
		{"not measured", results.Result{Target: "t", Requests: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := results.Run{Results: []results.Result{tt.r}}
			if got := hasKind(Diagnose(&run, nil), KindSendLag); got != tt.want {
				t.Errorf("send-lag finding = %v, want %v", got, tt.want)
			}
		})
	}
}

func hasKind(fs []results.Finding, kind string) bool {
	for _, f := range fs {
		if f.Kind == kind {
			return true
		}
	}
	return false
}
