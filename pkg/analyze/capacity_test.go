package analyze

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// reported3xFixed is 3.x after the fix: 668 req/s, kube-auth-proxy peaking at
// 0.1743 cores with no limit.
func reported3xFixed() *results.Run {
	var samples []results.Sample
	for i := 0; i < 20; i++ {
		samples = append(samples, results.Sample{T: float64(i + 1), CPU: 0.10 + 0.004*float64(i), Mem: 40 << 20})
	}
	samples[19].CPU = 0.1743
	proxy := results.ComponentUsage{Name: "kube-auth-proxy", Role: "auth-proxy", Source: "local",
		CPUMean: 0.14, CPUPeak: 0.1743, MemPeak: 46.5 * (1 << 20), Samples: samples}
	gen := diagComp("authbench", "load-generator", 0.5, 0.6)
	return diagFixture(plan.Closed, 50, diagIter{rps: 668, mean: 74.9, p95: 110, ok: 10000,
		comps: []results.ComponentUsage{proxy, gen}})
}

func TestPlanCapacity(t *testing.T) {
	tests := []struct {
		name         string
		run          *results.Run
		opts         CapacityOptions
		wantReplicas int
		wantNote     string
	}{
		{"3.x for 2000 req/s at 70%", reported3xFixed(), CapacityOptions{TargetRPS: 2000}, 5, "5 replicas serve 2000 req/s"},
		{"2.x for 2000 req/s at 70%", diag2x(), CapacityOptions{TargetRPS: 2000}, 3, "closed-loop capacity at 50 workers"},
		{"no target", reported3xFixed(), CapacityOptions{}, 0, ""},
		{"throttled run", diag3xThrottled(), CapacityOptions{TargetRPS: 100, Utilization: 0.5}, 7, "kube-auth-proxy was throttled at its 50m limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := PlanCapacity(tt.run, tt.opts)
			if len(caps) != 1 {
				t.Fatalf("got %d capacities", len(caps))
			}
			c := caps[0]
			if c.Replicas != tt.wantReplicas {
				t.Errorf("replicas = %d, want %d (per replica %v req/s)", c.Replicas, tt.wantReplicas, c.PerReplicaRPS)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(c.Notes, "\n"), tt.wantNote) {
				t.Errorf("notes lack %q: %v", tt.wantNote, c.Notes)
			}
		})
	}
}

func TestResourceAdviceFromPeaks(t *testing.T) {
	c := PlanCapacity(reported3xFixed(), CapacityOptions{})[0]
	if len(c.Components) != 1 {
		t.Fatalf("components = %+v; want the proxy only (authbench is not deployed)", c.Components)
	}
	a := c.Components[0]
	want := results.ResourceAdvice{Component: "kube-auth-proxy", Role: "auth-proxy", CPUPeak: 0.1743, CPUP95: 0.172,
		MemPeak: 46.5 * (1 << 20), CPURequest: 0.18, CPULimit: 0.35, MemRequest: 40 << 20, MemLimit: 93 << 20}
	if a.CPUP95 < 0.1719 || a.CPUP95 > 0.1721 {
		t.Errorf("CPU p95 = %v, want 0.172", a.CPUP95)
	}
	a.CPUP95 = want.CPUP95
	if a != want {
		t.Errorf("advice =\n %+v\nwant\n %+v", a, want)
	}
	throttled := PlanCapacity(diag3xThrottled(), CapacityOptions{})[0]
	for _, a := range throttled.Components {
		if a.Component == "kube-auth-proxy" && (!a.Throttled || a.CPULimit != 0.1) {
			t.Errorf("throttled proxy advice = %+v; want throttled, limit 100m", a)
		}
	}
}
