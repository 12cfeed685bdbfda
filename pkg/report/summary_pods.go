package report

import (
	"fmt"

	"github.com/authbench/authbench/pkg/results"
)

// generatorPods is the per-pod table of load run from pods (run --pods):
// what each pod covered, how far apart they started, and their own CPU.
func (s *summaryWriter) generatorPods(t targetRun) {
	var any bool
	for _, r := range t.results {
		any = any || r.Pods != nil
	}
	if !any {
		return
	}
	s.heading(2, "Load Generator Pods")
	for _, r := range t.results {
		pe := r.Pods
		if pe == nil {
			continue
		}
		s.printf("Iteration %d: %d of %d pods delivered their result; start spread %s.", r.Iteration, pe.Completed, pe.Asked, fmtMillis(pe.StartSpreadMs))
		if pe.Completed < pe.Asked {
			s.printf(" **Partial:** the figures cover %d requests over %.0f s with every pod sending.", pe.Coverage.Requests, pe.Coverage.Seconds)
		}
		s.printf("\n\n| Pod | Node | State | Requests | Errors | Start Skew | CPU | Throttled Periods |\n")
		s.printf("|-----|------|-------|----------|--------|------------|-----|-------------------|\n")
		for _, p := range pe.Pods {
			p = p.WithSampled(r.Components)
			state := p.State
			if p.Reason != "" {
				state += " (" + p.Reason + ")"
			}
			s.printf("| %s | %s | %s | %d | %d | %s | %s | %s |\n", cell(firstNonEmpty(p.Name, fmt.Sprint(p.Index))), cell(firstNonEmpty(p.Node, "—")),
				cell(state), p.Requests, p.Errors, fmtMillis(p.StartSkewMs), podCPU(p), podThrottled(p))
		}
		s.printf("\n")
	}
	s.printf("Start skews are by each pod's own clock: across nodes they include the nodes' clock offsets.\n")
}

func fmtMillis(ms float64) string { return fmt.Sprintf("%.1f ms", ms) }

func podCPU(p results.PodStat) string {
	if p.CPUSeconds <= 0 || p.Seconds <= 0 {
		return "—"
	}
	c := fmt.Sprintf("%.2f cores", p.CPUSeconds/p.Seconds)
	if p.CPULimit > 0 {
		c += fmt.Sprintf(" of %.2f", p.CPULimit)
	}
	return c
}

func podThrottled(p results.PodStat) string {
	if p.Periods == 0 {
		return "—"
	}
	return fmt.Sprintf("%d of %d", p.ThrottledPeriods, p.Periods)
}
