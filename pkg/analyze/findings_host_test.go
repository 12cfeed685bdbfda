package analyze

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// hostRun is the demo's situation: the 2.x stack closed loop on a host of
// cpus CPUs, its components using the given cores in every iteration.
func hostRun(cpus int, proxy, echo, gen float64) *results.Run {
	r := diag2x()
	r.Environment.CPUs = cpus
	for i := range r.Results {
		r.Results[i].Components = []results.ComponentUsage{diagComp("oauth-proxy", "auth-proxy", proxy, proxy*1.2),
			diagComp("http-echo", "backend", echo, echo*1.2), diagComp("authbench", "load-generator", gen, gen*1.2)}
	}
	return r
}

func TestHostContention(t *testing.T) {
	remote := remoteRun()
	capRun := diagFixture(plan.Open, 50, diagIter{rps: 400, mean: 5, p95: 8, ok: 800}, diagIter{rps: 800, mean: 9, p95: 20, ok: 1600})
	capRun.Kind, capRun.Environment.CPUs = results.KindCapacity, 2
	capRun.Results[0].TargetRPS, capRun.Results[1].TargetRPS = 400, 800
	capRun.Results[1].Components = []results.ComponentUsage{diagComp("captest", "backend", 0.9, 1), diagComp("authbench", "load-generator", 0.7, 0.8)}
	// The note's unflagged case: other tenants kept the host busy while
	// the sampled components used a fraction of it.
	neighbours := withHost(hostRun(2, 0.1, 0.05, 0.2), 1.8, 0.1, 0)
	quiet := withHost(hostRun(2, 0.1, 0.05, 0.2), 0.4, 0.2, 0)
	unsampled := withHost(diag2x(), 1.7, 0.9, 0.3)
	for i := range unsampled.Results {
		unsampled.Results[i].Components = nil
	}
	tests := []struct {
		name  string
		run   *results.Run
		want  bool
		share float64 // expected share when want
		words []string
	}{
		{"neighbours busy, components idle", neighbours, true, 0.9, []string{"2 CPUs were 90% busy", "the sampled components 0.35",
			"processes not sampled 1.45", "Processes other than the run's took 72%"}},
		{"host quiet", quiet, false, 0, nil},
		{"pods sampled through Prometheus", withHost(remoteRun(), 1.8, 0.1, 0), true, 0.9, []string{
			"the 1 components sampled through Prometheus, if they run here, and processes not sampled 1.1"}},
		{"nothing sampled, host busy", unsampled, true, 0.85, []string{"authbench itself 0.9", "processes not sampled 0.8",
			"of which 0.3 taken by the hypervisor"}},
		// The demo's summary: ~1.5 of 2 cores under load.
		{"demo on 2 CPUs", hostRun(2, 0.7, 0.3, 0.5), true, 0.75, []string{"1.5 of this host's 2 CPUs", "75%", "oauth-proxy 0.7, authbench 0.5, http-echo 0.3"}},
		{"same load on 8 CPUs", hostRun(8, 0.7, 0.3, 0.5), false, 0, nil},
		{"just under the threshold", hostRun(2, 0.69, 0.3, 0.5), false, 0, nil},
		{"remote components do not share the host", remote, false, 0, nil},
		{"capacity step", capRun, true, 0.8, []string{"step 2 (800 req/s offered)", "captest 0.9"}},
		{"nothing sampled", diag2x(), false, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := diagKinds(Diagnose(tt.run, nil))
			f, got := fs[KindHostContention]
			if got != tt.want {
				t.Fatalf("host-contention finding = %v, want %v (%v)", got, tt.want, f.Evidence)
			}
			if !got {
				return
			}
			if share := f.Values["host_share"]; share < tt.share-1e-9 || share > tt.share+1e-9 {
				t.Errorf("host_share = %v, want %v", share, tt.share)
			}
			for _, w := range tt.words {
				if !strings.Contains(f.Evidence, w) {
					t.Errorf("evidence lacks %q: %s", w, f.Evidence)
				}
			}
			if f.Severity != SeverityWarning || f.Target == "" {
				t.Errorf("severity %q target %q", f.Severity, f.Target)
			}
		})
	}
}

// TestHostContentionCaveat: the saturation finding, which states a
// capacity, says that capacity is the host's when the host is contended,
// and not otherwise.
func TestHostContentionCaveat(t *testing.T) {
	for _, tt := range []struct {
		name string
		cpus int
		want bool
	}{{"contended", 2, true}, {"roomy", 16, false}} {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := diagKinds(Diagnose(hostRun(tt.cpus, 0.7, 0.3, 0.5), nil))[KindSaturation]
			if !ok {
				t.Fatal("no saturation finding for the migration reports' 2.x closed loop")
			}
			if got := strings.Contains(f.Evidence, KindHostContention); got != tt.want {
				t.Errorf("caveat in saturation evidence = %v, want %v: %s", got, tt.want, f.Evidence)
			}
		})
	}
}

// withHost gives every result of r a host reading of busy cores on 2 CPUs,
// self of them authbench's and steal of them stolen.
func withHost(r *results.Run, busy, self, steal float64) *results.Run {
	for i := range r.Results {
		r.Results[i].Host = &results.HostCPU{CPUs: 2, Seconds: 5, BusyCores: busy, SelfCores: self, StealCores: steal}
	}
	return r
}

// remoteRun is hostRun with its proxy sampled through Prometheus.
func remoteRun() *results.Run {
	r := hostRun(2, 0.9, 0.3, 0.4)
	for i := range r.Results {
		r.Results[i].Components[0].Source = "prometheus"
	}
	return r
}
