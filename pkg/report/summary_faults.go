package report

import (
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// faults is the "Faults on the Lab's Links" section: the run's timeline
// of faults, each when it was set and until when it held, in seconds from
// the run's start, so that the iterations' figures and the fault findings
// can be read against it. Nothing when no fault touched the run.
func (s *summaryWriter) faults() {
	spans := analyze.FaultSpans(s.run)
	if len(spans) == 0 {
		return
	}
	s.heading(2, "Faults on the Lab's Links")
	s.printf("| Fault | Link | Set at | Until | Lasted |\n")
	s.printf("|-------|------|--------|-------|--------|\n")
	for _, sp := range spans {
		s.printf("| %s | %s | %s | %s (%s) | %s s |\n", cell(analyze.FaultLabel(sp.Fault)), cell(sp.Fault.Link),
			offsetCell(s.run, sp.From), offsetCell(s.run, sp.To), sp.Ended, fmtSig(sp.Seconds(), 3))
	}
	s.printf("\nTimes are seconds from the run's start, when the lab's fault proxy took each change (the lab's %s); a fault set before the run began and still in force is listed with its own start.", code("faults.jsonl"))
	if kinds := faultKinds(s.run.Findings); len(kinds) > 0 {
		s.printf(" What the faults did to the requests is in the findings: %s.", codeList(kinds))
	}
	s.printf("\n\n")
}

// offsetCell is t as seconds from the run's start.
func offsetCell(run *results.Run, t time.Time) string {
	return fmtSig(analyze.RunOffset(run, t), 3) + " s"
}

// faultKinds are the kinds of the fault findings present, in order.
func faultKinds(fs []results.Finding) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range fs {
		switch f.Kind {
		case analyze.KindFaultSlowAPIServer, analyze.KindFaultDown, analyze.KindFaultKeycloakDown:
			if !seen[f.Kind] {
				seen[f.Kind] = true
				out = append(out, f.Kind)
			}
		}
	}
	return out
}
