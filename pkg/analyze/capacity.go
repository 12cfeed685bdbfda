package analyze

import (
	"fmt"
	"math"
	"sort"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// DefaultUtilization is the share of a replica's measured throughput that
// capacity planning counts on, leaving 30% headroom.
const DefaultUtilization = 0.7

// Resource recommendation factors: the request covers the 95th percentile
// of per-second use, the limit at least LimitFactor × the peak.
const (
	LimitFactor = 2.0
	minCPU      = 0.01     // 10m, the smallest request worth writing
	mebibyte    = 1 << 20  // memory is rounded up to whole MiB
	minMemory   = mebibyte //
)

// CapacityOptions configure PlanCapacity. The zero value gives resource
// advice without a replica count.
type CapacityOptions struct {
	// TargetRPS is the throughput to serve. Default 0: no replica count.
	TargetRPS float64
	// Utilization is the share of measured throughput to plan on.
	// Default DefaultUtilization.
	Utilization float64
	// UnderSLO, per target, is the rate a capacity search found it served
	// under its SLO: one replica's throughput when given, instead of the
	// run's mean throughput. Default nil.
	UnderSLO map[string]float64
}

// CapacityOptionsFrom reads the plan's capacity block (zero when absent).
func CapacityOptionsFrom(p *plan.Plan) CapacityOptions {
	if p == nil || p.Capacity == nil {
		return CapacityOptions{}
	}
	return CapacityOptions{TargetRPS: p.Capacity.TargetRPS, Utilization: p.Capacity.Utilization}
}

// PlanCapacity sizes each target: replicas for the planned throughput,
// taking the run's mean throughput as one replica's, and Kubernetes CPU and
// memory requests and limits per component from what it used (authbench
// itself excluded).
func PlanCapacity(run *results.Run, o CapacityOptions) []results.Capacity {
	if run == nil {
		return nil
	}
	if o.Utilization <= 0 || o.Utilization > 1 {
		o.Utilization = DefaultUtilization
	}
	var out []results.Capacity
	names, by := targetResults(run.Results)
	for _, name := range names {
		rs := by[name]
		c := results.Capacity{Target: name, Utilization: o.Utilization,
			PerReplicaRPS: avgOf(rs, func(r results.Result) float64 { return r.ThroughputRPS })}
		if v := o.UnderSLO[name]; v > 0 {
			c.PerReplicaRPS, c.Basis = v, results.BasisSLOCapacity
		}
		if o.TargetRPS > 0 && c.PerReplicaRPS > 0 {
			c.TargetRPS = o.TargetRPS
			c.Replicas = int(math.Ceil(o.TargetRPS/(c.PerReplicaRPS*o.Utilization) - 1e-9))
		}
		c.Components = resourceAdvice(rs)
		c.Notes = capacityNotes(run, name, rs, c)
		out = append(out, c)
	}
	return out
}

// resourceAdvice recommends requests and limits per component.
func resourceAdvice(rs []results.Result) []results.ResourceAdvice {
	var out []results.ResourceAdvice
	for _, c := range componentRuns(rs) {
		if c.role == RoleLoadGenerator {
			continue
		}
		var cpu, mem []float64
		var memPeak float64
		for _, r := range rs {
			for _, u := range r.Components {
				if u.Name != c.name || u.Source != c.source {
					continue
				}
				memPeak = math.Max(memPeak, u.MemPeak)
				for _, s := range u.Samples {
					cpu = append(cpu, s.CPU)
					mem = append(mem, s.Mem)
				}
			}
		}
		cpuP95 := percentile(cpu, 0.95)
		a := results.ResourceAdvice{Component: c.name, Role: c.role, CPUPeak: c.cpuPeak, CPUP95: cpuP95,
			MemPeak: memPeak, CurrentCPULimit: c.cpuLimit,
			Throttled: c.ratio() > ThrottleRatio || (c.cpuLimit > 0 && c.cpuPeak >= LimitUse*c.cpuLimit)}
		a.CPURequest = math.Max(minCPU, ceilCores(cpuP95))
		a.CPULimit = math.Max(a.CPURequest, ceilCores(LimitFactor*c.cpuPeak))
		a.MemRequest = math.Max(minMemory, ceilMiB(percentile(mem, 0.95)))
		a.MemLimit = math.Max(a.MemRequest, ceilMiB(LimitFactor*memPeak))
		out = append(out, a)
	}
	return out
}

func capacityNotes(run *results.Run, target string, rs []results.Result, c results.Capacity) []string {
	var notes []string
	if c.Replicas > 0 && c.Basis == results.BasisSLOCapacity {
		notes = append(notes, fmt.Sprintf("%d replicas serve %s req/s at %.0f%% of the %s req/s one replica served "+
			"at its capacity under the SLO.", c.Replicas, num(c.TargetRPS), c.Utilization*100, num(c.PerReplicaRPS)))
	} else if c.Replicas > 0 {
		notes = append(notes, fmt.Sprintf("%d replicas serve %s req/s at %.0f%% of the %s req/s one replica handled here.",
			c.Replicas, num(c.TargetRPS), c.Utilization*100, num(c.PerReplicaRPS)))
	}
	if _, ok := closedSaturation(run.Plan.Load.Concurrency, target, closedOnly(rs)); ok {
		notes = append(notes, fmt.Sprintf("The per-replica throughput is a closed-loop capacity at %d workers; "+
			"latency near it is queueing.", run.Plan.Load.Concurrency))
	}
	for _, a := range c.Components {
		if a.Throttled {
			notes = append(notes, fmt.Sprintf("%s was throttled at its %s limit: its peak, and the throughput, were "+
				"capped by it; measure again without the limit before trusting %s's figures.",
				a.Component, millicores(a.CurrentCPULimit), a.Component))
		}
	}
	if len(generatorFindings(run, target, rs)) > 0 {
		notes = append(notes, "authbench was short of CPU: the per-replica throughput understates the target.")
	}
	return notes
}

func closedOnly(rs []results.Result) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if r.Model != plan.Open {
			out = append(out, r)
		}
	}
	return out
}

// percentile is the nearest-rank q-quantile of xs (0 for none).
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ceilMiB(b float64) float64 { return math.Ceil(b/mebibyte) * mebibyte }
