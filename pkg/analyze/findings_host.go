package analyze

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// KindHostContention is the finding that the host's CPUs were mostly busy
// during a result: with the sampled components, the load generator among
// them, or with processes no sampler saw.
const KindHostContention = "host-contention"

// HostContention is the share of the host's CPUs that must be busy, in one
// iteration (or step), for the host-contention finding: from there the
// figures measure the host.
const HostContention = 0.75

// HostOthers is the share of the host's CPUs that processes other than the
// sampled ones must take for the finding to name them as neighbours whose
// noise the figures carry.
const HostOthers = 0.25

// HostLoad is how busy the host was in the busiest result of a target.
type HostLoad struct {
	// Result is the busiest result (iteration or capacity step).
	Result results.Result
	// CPU is the sum of the local components' mean CPU in cores; CPUs is
	// the host's; Share is the larger of CPU and Host's busy cores over
	// CPUs.
	CPU   float64
	CPUs  int
	Share float64
	// Host is the whole host's CPU in Result, nil when it was not read.
	Host *results.HostCPU
	// Others is what the host ran besides the sampled local components (or
	// besides authbench, when none was sampled), in cores.
	Others float64
}

// HostContended finds the result of rs in which the host's CPUs were
// busiest, by /proc/stat when read, else by the local components
// (authbench included; Prometheus-sampled ones may run elsewhere), and
// reports whether that share reaches HostContention.
func HostContended(run *results.Run, rs []results.Result) (HostLoad, bool) {
	var best HostLoad
	if run == nil {
		return best, false
	}
	for _, r := range rs {
		h := hostLoad(run, r)
		if h.CPUs > 0 && (best.CPUs == 0 || h.Share > best.Share) {
			best = h
		}
	}
	return best, best.Share > 0 && best.Share >= HostContention
}

// hostLoad is how busy the host was in result r.
func hostLoad(run *results.Run, r results.Result) HostLoad {
	h := HostLoad{Result: r, CPUs: run.Environment.CPUs, Host: r.Host}
	for _, u := range r.Components {
		if u.Source == "local" || u.Source == "" {
			h.CPU += u.CPUMean
		}
	}
	busy := h.CPU
	if r.Host != nil && r.Host.CPUs > 0 {
		h.CPUs, busy = r.Host.CPUs, math.Max(busy, r.Host.BusyCores)
		known := h.CPU
		if known == 0 {
			known = r.Host.SelfCores
		}
		h.Others = math.Max(0, r.Host.BusyCores-known)
	}
	if h.CPUs > 0 {
		h.Share = busy / float64(h.CPUs)
	}
	return h
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
			out[i].Evidence += fmt.Sprintf(" Caveat (%s): %s %.0f%% of this host's %d CPUs, "+
				"so this capacity is the host's, not the target's alone.", KindHostContention, hostWho(h), h.Share*100, h.CPUs)
		}
	}
	return append(out, results.Finding{
		Kind: KindHostContention, Severity: SeverityWarning, Target: target,
		Evidence: hostEvidence(run, h),
		Advice: "Read throughput and capacity here as this host's, a lower bound for the target on hardware of its own. " +
			"Put the load generator on other CPUs than the target (another machine, or cpusets apart) and measure " +
			"again; CPU-seconds per 1,000 requests, per component, carry over to other hosts better than throughput does.",
		Values: hostValues(h),
	})
}

// hostWho says what kept the host busy, for the saturation caveat.
func hostWho(h HostLoad) string {
	if h.Host == nil {
		return "the components used"
	}
	return "the host was busy on"
}

func hostValues(h HostLoad) results.Values {
	v := results.Values{"host_cpus": float64(h.CPUs), "components_cpu_cores": h.CPU, "host_share": h.Share,
		"iteration": float64(h.Result.Iteration), "threshold": HostContention}
	if h.Host != nil {
		v["host_busy_cores"], v["others_cpu_cores"], v["steal_cores"] = h.Host.BusyCores, h.Others, h.Host.StealCores
	}
	return v
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
	const shared = "The load generator and every component competed for the same cores, so the " +
		"throughput and capacity measured are this host's, not the target's alone."
	if h.Host == nil {
		return fmt.Sprintf("In %s, the sampled components together used %s of this host's %d CPUs on average (%.0f%%, "+
			"threshold %.0f%%): %s cores. %s", when, num(h.CPU), h.CPUs, h.Share*100, HostContention*100, strings.Join(parts, ", "), shared)
	}
	sampled := "authbench itself " + num(h.Host.SelfCores)
	if len(parts) > 0 {
		sampled = "the sampled components " + num(h.CPU) + " (" + strings.Join(parts, ", ") + ")"
	}
	rest := "processes not sampled"
	if remote := len(h.Result.Components) - len(parts); remote > 0 {
		rest = fmt.Sprintf("the %d components sampled through Prometheus, if they run here, and processes not sampled", remote)
	}
	ev := fmt.Sprintf("In %s, this host's %d CPUs were %.0f%% busy (%s cores on average, threshold %.0f%%): %s, "+
		"and %s %s", when, h.CPUs, h.Share*100, num(h.Host.BusyCores), HostContention*100, sampled, rest, num(h.Others))
	if h.Host.StealCores >= 0.05 {
		ev += fmt.Sprintf(", of which %s taken by the hypervisor for other guests", num(h.Host.StealCores))
	}
	ev += ". " + shared
	if h.Others >= HostOthers*float64(h.CPUs) && len(parts) == len(h.Result.Components) {
		ev += fmt.Sprintf(" Processes other than the run's took %.0f%% of the CPUs: the figures carry their noise, "+
			"and a comparison with a run on a quieter host compares the hosts too.", h.Others/float64(h.CPUs)*100)
	}
	return ev
}
