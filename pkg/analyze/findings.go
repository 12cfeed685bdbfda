package analyze

import (
	"github.com/authbench/authbench/pkg/results"
)

// Finding kinds (results.Finding.Kind).
const (
	KindSaturation        = "saturation"
	KindCPUThrottling     = "cpu-throttling"
	KindBackendBottleneck = "backend-bottleneck"
	KindGeneratorBound    = "generator-bound"
	KindAuthErrors        = "auth-errors"
	KindInstability       = "instability"
)

// Severities (results.Finding.Severity).
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// Thresholds of the diagnosis. SaturationTolerance (Little's law, 15%) is
// shared with the comparison.
const (
	// ThrottleRatio is the throttled-period share above which a component
	// is reported throttled; CriticalThrottleRatio makes it critical.
	ThrottleRatio         = 0.05
	CriticalThrottleRatio = 0.25
	// LimitUse is the peak-to-limit share at which a component is reported
	// as running into its limit.
	LimitUse = 0.9
	// BackendBusy is the backend's mean CPU, as a share of a core or of its
	// limit, from which it is reported as the bottleneck.
	BackendBusy = 0.75
	// GeneratorBusy is authbench's mean CPU as a share of the machine's
	// CPUs from which the figures are reported as generator-bound;
	// MachineBusy is the same for all sampled components together.
	GeneratorBusy = 0.8
	MachineBusy   = 0.9
	// InstabilityCV is the coefficient of variation across iterations of
	// P95 or throughput above which a target is reported unstable.
	InstabilityCV = 0.10
	// OpenLoopRate is the share of measured closed-loop capacity suggested
	// for an open-loop latency run.
	OpenLoopRate = 0.6
)

// Diagnose explains a run: which findings its numbers support, each with
// the evidence from this run and what to do. tl is the run's timeline
// (nil when there is none); it dates authentication errors.
func Diagnose(run *results.Run, tl *results.Timeline) []results.Finding {
	if run == nil {
		return nil
	}
	var out []results.Finding
	names, by := targetResults(run.Results)
	for _, name := range names {
		rs := by[name]
		out = append(out, saturationFindings(run, name, rs)...)
		out = append(out, throttlingFindings(name, rs, workloads(run))...)
		out = append(out, backendFindings(name, rs)...)
		out = append(out, generatorFindings(run, name, rs)...)
		out = append(out, podFindings(name, rs)...)
		out = append(out, authErrorFindings(name, rs, tl)...)
		out = append(out, gatewayAuthzFindings(name, rs)...)
		out = append(out, instabilityFindings(name, rs)...)
		out = append(out, sendLagFindings(name, rs)...)
		out = hostContention(run, name, rs, out)
		out = networkRoundTrip(run, name, rs, out)
	}
	out = append(out, APIServerFindings(run)...)
	out = append(out, ClientRateLimitFindings(run)...)
	out = append(out, gatewayLadderFindings(run)...)
	return append(out, observationFindings(run)...)
}
