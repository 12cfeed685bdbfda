package analyze

import (
	"fmt"

	"github.com/authbench/authbench/pkg/results"
)

// Finding kinds about how the run was observed and sent.
const (
	// KindLabNotObserved: the targets belong to a lab whose components
	// were not sampled, so throttling and saturation cannot be seen.
	KindLabNotObserved = "lab-not-observed"
	// KindSendLag: the open loop sent late against its schedule.
	KindSendLag = "send-lag"
)

// SendLagShare is the open loop's P99 send lag, as a share of the
// measured P99 latency, above which the lag is reported: latency counts
// from the schedule, so a lagging generator inflates it.
const SendLagShare = 0.1

// observationFindings report a lab the run did not observe: one it was
// told about but could not sample, or one whose every component went
// unsampled.
func observationFindings(run *results.Run) []results.Finding {
	if u := run.UnobservedLab; u != nil {
		return []results.Finding{labNotObserved(u.Dir, u.Reason)}
	}
	if run.Lab == nil || len(run.Lab.Components) == 0 || len(run.Results) == 0 || labSampled(run) {
		return nil
	}
	return []results.Finding{labNotObserved(run.Lab.Dir, "none of its components could be sampled")}
}

func labNotObserved(dir, reason string) results.Finding {
	return results.Finding{Kind: KindLabNotObserved, Severity: SeverityWarning,
		Evidence: fmt.Sprintf("The targets belong to the lab in %s, which this run did not observe: %s.", dir, reason),
		Advice:   "Resource figures (CPU, throttling, memory) of the lab's components are missing: start the lab, or name it with --lab-dir, and run again."}
}

// labSampled reports whether any of the lab's components has a sample.
func labSampled(run *results.Run) bool {
	names := map[string]bool{}
	for _, c := range run.Lab.Components {
		names[c.Name] = true
	}
	for _, r := range run.Results {
		for _, c := range r.Components {
			if names[c.Name] && (len(c.Samples) > 0 || c.CPUMean > 0 || c.MemPeak > 0) {
				return true
			}
		}
	}
	return false
}

// sendLagFindings report iterations whose open loop sent late by more
// than SendLagShare of their P99 latency.
func sendLagFindings(name string, rs []results.Result) []results.Finding {
	var worst *results.Result
	for i := range rs {
		r := &rs[i]
		if r.SendLag == nil || r.Latency.P99 <= 0 || r.SendLag.P99Ms <= SendLagShare*r.Latency.P99 {
			continue
		}
		if worst == nil || r.SendLag.P99Ms/r.Latency.P99 > worst.SendLag.P99Ms/worst.Latency.P99 {
			worst = r
		}
	}
	if worst == nil {
		return nil
	}
	l := worst.SendLag
	return []results.Finding{{Kind: KindSendLag, Severity: SeverityWarning, Target: name,
		Evidence: fmt.Sprintf("Iteration %d sent requests late: send lag P50 %.2f ms, P99 %.2f ms, max %.2f ms, against a P99 latency of %.2f ms.",
			worst.Iteration, l.P50Ms, l.P99Ms, l.MaxMs, worst.Latency.P99),
		Advice: "The load generator could not keep the schedule (busy host or too few workers): latency counted from the schedule includes that lag. Raise -c, lower the rate, or run the generator on its own cores.",
		Values: results.Values{"send_lag_p99_ms": l.P99Ms, "latency_p99_ms": worst.Latency.P99}}}
}
