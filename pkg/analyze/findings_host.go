package analyze

import (
	"fmt"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// KindHostContention is the finding that the sampled components, the load
// generator among them, used most of the host's CPUs together.
const KindHostContention = "host-contention"

// HostContention is the share of the host's CPUs that the local
// components must use together, in one iteration (or step), for the
// host-contention finding: from there the figures measure the host.
const HostContention = 0.75

// HostLoad is what the local components used together in the busiest
// result of a target.
type HostLoad struct {
	// Result is the busiest result (iteration or capacity step).
	Result results.Result
	// CPU is the sum of the local components' mean CPU in cores; CPUs is
	// the host's; Share is CPU / CPUs.
	CPU   float64
	CPUs  int
	Share float64
}

// HostContended finds the result of rs in which the local components
// (authbench included; Prometheus-sampled ones run elsewhere) used the
// largest share of the host's CPUs, and reports whether that share reaches
// HostContention.
func HostContended(run *results.Run, rs []results.Result) (HostLoad, bool) {
	var best HostLoad
	if run == nil || run.Environment.CPUs <= 0 {
		return best, false
	}
	for _, r := range rs {
		var cpu float64
		for _, u := range r.Components {
			if u.Source == "local" || u.Source == "" {
				cpu += u.CPUMean
			}
		}
		if cpu > best.CPU {
			best = HostLoad{Result: r, CPU: cpu, CPUs: run.Environment.CPUs}
		}
	}
	best.Share = best.CPU / float64(run.Environment.CPUs)
	return best, best.CPU > 0 && best.Share >= HostContention
}

// hostContention adds the host-contention finding for a target to out,
// and its caveat to the target's saturation findings already in out,
// since the capacity they state is then the host's.
func hostContention(run *results.Run, target string, rs []results.Result, out []results.Finding) []results.Finding {
	h, ok := HostContended(run, rs)
	if !ok {
		return out
	}
	for i := range out {
		if out[i].Target == target && out[i].Kind == KindSaturation {
			out[i].Evidence += fmt.Sprintf(" Caveat (%s): the components used %.0f%% of this host's %d CPUs, "+
				"so this capacity is the host's, not the target's alone.", KindHostContention, h.Share*100, h.CPUs)
		}
	}
	return append(out, results.Finding{
		Kind: KindHostContention, Severity: SeverityWarning, Target: target,
		Evidence: hostEvidence(run, h),
		Advice: "Read throughput and capacity here as this host's, a lower bound for the target on hardware of its own. " +
			"Put the load generator on other CPUs than the target (another machine, or cpusets apart) and measure " +
			"again; CPU-seconds per 1,000 requests, per component, carry over to other hosts better than throughput does.",
		Values: results.Values{"host_cpus": float64(h.CPUs), "components_cpu_cores": h.CPU, "host_share": h.Share,
			"iteration": float64(h.Result.Iteration), "threshold": HostContention},
	})
}

func hostEvidence(run *results.Run, h HostLoad) string {
	when := fmt.Sprintf("iteration %d", h.Result.Iteration)
	if run.Kind == results.KindCapacity {
		when = fmt.Sprintf("step %d (%s req/s offered)", h.Result.Iteration, num(h.Result.TargetRPS))
	}
	comps := append([]results.ComponentUsage(nil), h.Result.Components...)
	sort.SliceStable(comps, func(i, j int) bool { return comps[i].CPUMean > comps[j].CPUMean })
	var parts []string
	for _, u := range comps {
		if u.Source == "local" || u.Source == "" {
			parts = append(parts, fmt.Sprintf("%s %s", u.Name, num(u.CPUMean)))
		}
	}
	return fmt.Sprintf("In %s, the sampled components together used %s of this host's %d CPUs on average (%.0f%%, "+
		"threshold %.0f%%): %s cores. The load generator and every component competed for the same cores, so the "+
		"throughput and capacity measured are this host's, not the target's alone.",
		when, num(h.CPU), h.CPUs, h.Share*100, HostContention*100, strings.Join(parts, ", "))
}
