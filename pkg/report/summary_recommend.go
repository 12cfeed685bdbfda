package report

import (
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// recommendations writes the migration reports' Recommendations section: SLA
// targets from the measured percentiles, and capacity and resource sizing from
// run.json's capacity plan.
func (s *summaryWriter) recommendations(t targetRun) {
	capPlan := s.capacityFor(t.name)
	sla, ok := s.an.TargetSLA(t.name)
	if !ok && capPlan == nil {
		return
	}
	s.heading(2, "Recommendations")
	if ok {
		s.slaTargets(sla)
	}
	if capPlan != nil {
		s.capacity(capPlan)
	}
}

// slaTargets words analyze's suggested objectives.
func (s *summaryWriter) slaTargets(sla analyze.TargetSLA) {
	s.heading(3, "SLA Targets")
	s.printf("Suggested from the worst iteration with a %.1f× margin:\n\n", sla.Margin)
	for i, name := range []string{"P50", "P95", "P99"} {
		s.item(name+" target", "< %s (worst iteration %s)", fmtLatency(sla.Target[i]), fmtLatency(sla.Worst[i]))
	}
	if sla.Closed {
		s.printf("\n_These come from a closed loop: at saturation its latency is queueing set by the concurrency, " +
			"not what users see below capacity. Confirm SLA targets with an open-loop run at the expected rate (`-q`)._\n")
	}
	s.printf("\n")
}

// capacity writes the replica and resource sizing.
func (s *summaryWriter) capacity(c *results.Capacity) {
	s.heading(3, "Capacity Planning")
	if c.Basis == results.BasisSLOCapacity {
		s.item("Capacity per replica under the SLO", "%s (capacity search)", fmtRPS(c.PerReplicaRPS))
	} else {
		s.item("Measured throughput per replica", "%s", fmtRPS(c.PerReplicaRPS))
	}
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

// niceCeil is analyze.NiceCeil.
var niceCeil = analyze.NiceCeil
