package analyze

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// On a Kubernetes lab the throttling finding names where the component
// runs: its Deployment and container, beside its limit.
func TestThrottlingNamesTheWorkload(t *testing.T) {
	for _, tc := range []struct {
		name, workload, want string
	}{
		{"kube lab", "Deployment authbench/kube-auth-proxy, container proxy", "kube-auth-proxy (Deployment authbench/kube-auth-proxy, container proxy; CPU limit 50m)"},
		{"process lab", "", "kube-auth-proxy (CPU limit 50m)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := diag3xThrottled()
			run.Lab = &results.Lab{Components: []results.LabComponent{{Name: "kube-auth-proxy", Workload: tc.workload}}}
			f := diagKinds(Diagnose(run, nil))[KindCPUThrottling]
			if !strings.HasPrefix(f.Evidence, tc.want) {
				t.Errorf("evidence %q, want it to start with %q", f.Evidence, tc.want)
			}
		})
	}
}
