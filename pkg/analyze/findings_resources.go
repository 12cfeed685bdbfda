package analyze

import (
	"fmt"
	"math"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// RoleBackend and RoleLoadGenerator are the component roles the diagnosis
// keys on (observe.RoleLoadGenerator is authbench itself).
const (
	RoleBackend       = "backend"
	RoleLoadGenerator = "load-generator"
)

// componentRun is one component's usage across a target's iterations.
type componentRun struct {
	name, role, source string
	cpuMean            float64 // mean of the iterations' means
	cpuPeak            float64 // highest of the iterations' peaks
	cpuLimit           float64 // highest limit seen
	per1k              float64 // mean CPU-seconds per 1,000 requests
	periods, throttled int64
	throttledSeconds   float64
	maxRatio           float64
	iterations         int
}

// ratio is the throttled share over all iterations' periods, else the
// worst iteration's ratio when periods were not counted (Prometheus rates).
func (c componentRun) ratio() float64 {
	if c.periods > 0 {
		return float64(c.throttled) / float64(c.periods)
	}
	return c.maxRatio
}

// componentRuns aggregates each component over rs, in order of first
// appearance. A component sampled by two sources is taken from the first.
func componentRuns(rs []results.Result) []componentRun {
	var out []componentRun
	idx := map[string]int{}
	for _, r := range rs {
		for _, u := range r.Components {
			i, ok := idx[u.Name]
			if !ok {
				i = len(out)
				idx[u.Name] = i
				out = append(out, componentRun{name: u.Name, role: u.Role, source: u.Source})
			}
			c := &out[i]
			if c.source != u.Source {
				continue
			}
			n := float64(c.iterations)
			c.cpuMean = (c.cpuMean*n + u.CPUMean) / (n + 1)
			c.per1k = (c.per1k*n + u.CPUSecondsPer1k) / (n + 1)
			c.cpuPeak = math.Max(c.cpuPeak, u.CPUPeak)
			c.cpuLimit = math.Max(c.cpuLimit, u.CPULimit)
			c.periods += u.Periods
			c.throttled += u.ThrottledPeriods
			c.throttledSeconds += u.ThrottledSeconds
			c.maxRatio = math.Max(c.maxRatio, u.ThrottledRatio)
			c.iterations++
		}
	}
	return out
}

// workloads names where a Kubernetes lab runs each component.
func workloads(run *results.Run) map[string]string {
	w := map[string]string{}
	if run.Lab != nil {
		for _, c := range run.Lab.Components {
			if c.Workload != "" {
				w[c.Name] = c.Workload
			}
		}
	}
	return w
}

// throttlingFindings names every component throttled by its CPU quota or
// running into its limit, and where it runs (workloads).
func throttlingFindings(target string, rs []results.Result, workloads map[string]string) []results.Finding {
	var out []results.Finding
	for _, c := range componentRuns(rs) {
		ratio := c.ratio()
		atLimit := c.cpuLimit > 0 && c.cpuPeak >= LimitUse*c.cpuLimit
		if ratio <= ThrottleRatio && !atLimit {
			continue
		}
		sev := SeverityWarning
		if ratio >= CriticalThrottleRatio {
			sev = SeverityCritical
		}
		rec := ceilCores(2 * c.cpuPeak)
		out = append(out, results.Finding{
			Kind: KindCPUThrottling, Severity: sev, Target: target, Component: c.name,
			Evidence: throttlingEvidence(c, ratio, workloads[c.name]),
			Advice: fmt.Sprintf("Set %s's CPU limit to at least %s (2× the measured peak of %s cores), or remove it. "+
				"A throttled component's peak is capped by its limit, so rerun without the limit to see its real peak "+
				"before settling on a value, and alert on throttled periods rather than average CPU.",
				c.name, millicores(rec), num(c.cpuPeak)),
			Values: results.Values{"cpu_limit_cores": c.cpuLimit, "cpu_peak_cores": c.cpuPeak, "cpu_mean_cores": c.cpuMean,
				"throttled_ratio": ratio, "throttled_seconds": c.throttledSeconds, "recommended_limit_cores": rec},
		})
	}
	return out
}

func throttlingEvidence(c componentRun, ratio float64, workload string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", c.name)
	var where []string
	if workload != "" {
		where = append(where, workload)
	}
	if c.cpuLimit > 0 {
		where = append(where, "CPU limit "+millicores(c.cpuLimit))
	}
	if len(where) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(where, "; "))
	}
	if c.periods > 0 {
		fmt.Fprintf(&b, " was throttled in %.0f%% of its CFS periods (%d of %d, %s s spent throttled)",
			ratio*100, c.throttled, c.periods, num(c.throttledSeconds))
	} else {
		fmt.Fprintf(&b, " was throttled in up to %.0f%% of its CFS periods", ratio*100)
	}
	fmt.Fprintf(&b, " over %d iteration(s). Peak use %s cores", c.iterations, num(c.cpuPeak))
	if c.cpuLimit > 0 {
		fmt.Fprintf(&b, " = %.0f%% of the limit", c.cpuPeak/c.cpuLimit*100)
	}
	fmt.Fprintf(&b, "; mean use only %s cores", num(c.cpuMean))
	if c.cpuLimit > 0 {
		fmt.Fprintf(&b, " (%.0f%% of the limit)", c.cpuMean/c.cpuLimit*100)
	}
	b.WriteString(". Average CPU hides throttling (in the migration reports, the proxy throttled at 50m showed 3% average CPU).")
	return b.String()
}

// backendFindings reports a backend busy enough to set the pace itself, or
// costing more CPU per request than every other component together.
func backendFindings(target string, rs []results.Result) []results.Finding {
	comps := componentRuns(rs)
	var others float64
	for _, c := range comps {
		if c.role != RoleBackend && c.role != RoleLoadGenerator {
			others += c.per1k
		}
	}
	var out []results.Finding
	for _, c := range comps {
		if c.role != RoleBackend {
			continue
		}
		capacity, of := 1.0, "a core"
		if c.cpuLimit > 0 {
			capacity, of = c.cpuLimit, "its CPU limit of "+millicores(c.cpuLimit)
		}
		busy := c.cpuMean >= BackendBusy*capacity
		dominant := others > 0 && c.per1k > others && c.cpuMean >= 0.1
		if !busy && !dominant {
			continue
		}
		thr := avgOf(rs, func(r results.Result) float64 { return r.ThroughputRPS })
		ev := fmt.Sprintf("Backend %s used %s cores on average (peak %s), %.0f%% of %s, at %s req/s: %s CPU-seconds per "+
			"1,000 requests", c.name, num(c.cpuMean), num(c.cpuPeak), c.cpuMean/capacity*100, of, num(thr), num(c.per1k))
		if others > 0 {
			ev += fmt.Sprintf(" against %s for all other components together", num(others))
		}
		sev := SeverityWarning
		if !busy {
			sev = SeverityInfo
		}
		out = append(out, results.Finding{
			Kind: KindBackendBottleneck, Severity: sev, Target: target, Component: c.name,
			Evidence: ev + ".",
			Advice: "The backend, not the auth layer, sets the pace of this run. Use a lightweight backend " +
				"(the migration reports' custom echo server used 73% CPU where hashicorp/http-echo used 1%) or give it more CPU, " +
				"and compare auth stacks only over the same backend.",
			Values: results.Values{"cpu_mean_cores": c.cpuMean, "cpu_peak_cores": c.cpuPeak, "cpu_limit_cores": c.cpuLimit,
				"cpu_seconds_per_1k": c.per1k, "others_cpu_seconds_per_1k": others},
		})
	}
	return out
}

// generatorFindings reports authbench itself, or the machine it shares with
// a local lab, running out of CPU.
func generatorFindings(run *results.Run, target string, rs []results.Result) []results.Finding {
	cpus := float64(run.Environment.CPUs)
	if cpus <= 0 {
		return nil
	}
	var gen *componentRun
	var local float64
	comps := componentRuns(rs)
	for i, c := range comps {
		if c.source == "local" || c.source == "" {
			local += c.cpuMean
		}
		if c.role == RoleLoadGenerator && gen == nil {
			gen = &comps[i]
		}
	}
	if gen == nil {
		return nil
	}
	own := gen.cpuMean / cpus
	machine := local / cpus
	if own < GeneratorBusy && (machine < MachineBusy || own < 0.25) {
		return nil
	}
	ev := fmt.Sprintf("authbench itself used %s of the machine's %d CPUs on average (%.0f%%, peak %s)",
		num(gen.cpuMean), run.Environment.CPUs, own*100, num(gen.cpuPeak))
	if local > gen.cpuMean {
		ev += fmt.Sprintf("; with the other local components, %s cores (%.0f%% of the machine)", num(local), machine*100)
	}
	return []results.Finding{{
		Kind: KindGeneratorBound, Severity: SeverityWarning, Target: target, Component: gen.name,
		Evidence: ev + ". The load generator competed for CPU, so throughput and latency may reflect this machine, not the target.",
		Advice: "The figures understate what the target can do. Run authbench on other CPUs than the target " +
			"(another machine, or pinned apart from a local lab), or lower the load until authbench's CPU stays well below the machine's.",
		Values: results.Values{"generator_cpu_cores": gen.cpuMean, "machine_cpus": cpus, "local_cpu_cores": local},
	}}
}

// ceilCores rounds a CPU amount up to whole 10 millicores.
func ceilCores(c float64) float64 { return math.Ceil(c*100-1e-9) / 100 }

// millicores formats cores the Kubernetes way: 0.05 -> "50m".
func millicores(c float64) string { return fmt.Sprintf("%.0fm", c*1000) }
