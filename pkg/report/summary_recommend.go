package report

import (
	"math"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// slaMargin is the headroom suggested SLA targets keep over the worst
// iteration, as the seeds' authors did by hand ("P95 < 100 ms, significant
// margin over 55 ms observed").
const slaMargin = 1.5

// recommendations writes the seeds' Recommendations section: SLA targets
// from the measured percentiles, and capacity and resource sizing from
// run.json's capacity plan.
func (s *summaryWriter) recommendations(t targetRun) {
	capPlan := s.capacityFor(t.name)
	ok := successful(t.results)
	if len(ok) == 0 && capPlan == nil {
		return
	}
	s.heading(2, "Recommendations")
	if len(ok) > 0 {
		s.slaTargets(ok)
	}
	if capPlan != nil {
		s.capacity(capPlan)
	}
}

// slaTargets suggests objectives from the worst iteration's percentiles.
func (s *summaryWriter) slaTargets(rs []results.Result) {
	var p50, p95, p99 float64
	for _, r := range rs {
		p50, p95, p99 = math.Max(p50, r.Latency.P50), math.Max(p95, r.Latency.P95), math.Max(p99, r.Latency.P99)
	}
	s.heading(3, "SLA Targets")
	s.printf("Suggested from the worst iteration with a %.1f× margin:\n\n", slaMargin)
	s.item("P50 target", "< %s (worst iteration %s)", fmtLatency(niceCeil(p50*slaMargin)), fmtLatency(p50))
	s.item("P95 target", "< %s (worst iteration %s)", fmtLatency(niceCeil(p95*slaMargin)), fmtLatency(p95))
	s.item("P99 target", "< %s (worst iteration %s)", fmtLatency(niceCeil(p99*slaMargin)), fmtLatency(p99))
	if rs[0].Model == plan.Closed {
		s.printf("\n_These come from a closed loop: at saturation its latency is queueing set by the concurrency, " +
			"not what users see below capacity. Confirm SLA targets with an open-loop run at the expected rate (`-q`)._\n")
	}
	s.printf("\n")
}

// capacity writes the replica and resource sizing.
func (s *summaryWriter) capacity(c *results.Capacity) {
	s.heading(3, "Capacity Planning")
	s.item("Measured throughput per replica", "%s", fmtRPS(c.PerReplicaRPS))
	s.item("Planned per replica", "%s (%.0f%% utilisation, leaving headroom)", fmtRPS(c.PerReplicaRPS*c.Utilization), c.Utilization*100)
	if c.TargetRPS > 0 {
		s.item("Replicas", "%d for %s", c.Replicas, fmtRPS(c.TargetRPS))
	}
	if len(c.Components) > 0 {
		s.printf("\n| Component | CPU Peak | CPU P95 | Current Limit | CPU Request | CPU Limit | Memory Peak | Memory Request | Memory Limit |\n")
		s.printf("|-----------|----------|---------|---------------|-------------|-----------|-------------|----------------|--------------|\n")
		for _, a := range c.Components {
			limit := "none"
			if a.CurrentCPULimit > 0 {
				limit = fmtCores(a.CurrentCPULimit)
			}
			if a.Throttled {
				limit += " (throttled)"
			}
			s.printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(a.Component), fmtCores(a.CPUPeak), fmtCores(a.CPUP95),
				limit, fmtCores(a.CPURequest), fmtCores(a.CPULimit), fmtMB(a.MemPeak), fmtMB(a.MemRequest), fmtMB(a.MemLimit))
		}
	}
	for _, n := range c.Notes {
		s.printf("\n- %s", n)
	}
	s.printf("\n\n")
}

func (s *summaryWriter) capacityFor(target string) *results.Capacity {
	for i := range s.run.Capacity {
		if c := &s.run.Capacity[i]; c.Target == target || (c.Target == "" && len(s.targets) == 1) {
			return c
		}
	}
	return nil
}

// successful keeps the iterations that measured a latency.
func successful(rs []results.Result) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if r.Requests > 0 && r.Latency.P50 > 0 {
			out = append(out, r)
		}
	}
	return out
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten, so that a target
// reads like one a person would set (80 ms -> 100 ms).
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}
