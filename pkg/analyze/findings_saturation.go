package analyze

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// saturationFindings applies Little's law to closed-loop results and checks
// open-loop results for a rate the target could not keep up with.
func saturationFindings(run *results.Run, target string, rs []results.Result) []results.Finding {
	var closed, open []results.Result
	for _, r := range rs {
		switch r.Model {
		case plan.Open:
			open = append(open, r)
		default:
			closed = append(closed, r)
		}
	}
	var out []results.Finding
	if f, ok := closedSaturation(run.Plan.Load.Concurrency, target, closed); ok {
		out = append(out, f)
	}
	if f, ok := openOverload(target, open); ok {
		out = append(out, f)
	}
	return out
}

// closedSaturation: with N workers always busy, mean latency = N /
// throughput. When that holds the latency is queueing set by capacity.
// With one worker nothing queues behind anything, so it is skipped.
func closedSaturation(workers int, target string, rs []results.Result) (results.Finding, bool) {
	thr := avgOf(rs, func(r results.Result) float64 { return r.ThroughputRPS })
	lat := avgOf(rs, func(r results.Result) float64 { return r.Latency.Mean })
	if workers <= 1 || thr <= 0 || lat <= 0 {
		return results.Finding{}, false
	}
	pred := float64(workers) / thr * 1000
	dev := (lat - pred) / pred
	if math.Abs(dev) > SaturationTolerance {
		return results.Finding{}, false
	}
	rate := roundSig(thr*OpenLoopRate, 2)
	evidence := fmt.Sprintf("Closed loop with %d workers: mean latency %s ms against %d / %s req/s = %s ms "+
		"predicted by Little's law (%+.0f%%). Every worker sent its next request as soon as the last returned, "+
		"so the latency measured is time spent queueing at the target's capacity (%s req/s at this concurrency), "+
		"not what a user sees below that load.",
		workers, num(lat), workers, num(thr), num(pred), dev*100, num(thr))
	if minLat := avgOf(rs, func(r results.Result) float64 { return r.Latency.Min }); minLat > 0 && lat/minLat >= 3 {
		evidence += fmt.Sprintf(" The fastest request took %s ms; the mean is %.0f× that.", num(minLat), lat/minLat)
	}
	return results.Finding{
		Kind: KindSaturation, Severity: SeverityWarning, Target: target,
		Evidence: evidence,
		Advice: fmt.Sprintf("Read %s req/s as this stack's capacity, not its latency. To measure latency, run "+
			"open loop below capacity: --rate %s (%.0f%% of capacity), or a few rates between %s and %s req/s "+
			"(50–70%%). Compare stacks on latency at the same rate, and on capacity separately.",
			num(thr), num(rate), OpenLoopRate*100, num(roundSig(thr*0.5, 2)), num(roundSig(thr*0.7, 2))),
		Values: results.Values{"concurrency": float64(workers), "throughput_rps": thr, "mean_latency_ms": lat,
			"littles_law_ms": pred, "deviation": dev, "suggested_rate": rate},
	}, true
}

// openOverload: an open-loop run whose achieved rate fell short of the
// target rate by more than the tolerance was beyond capacity, and its
// latency grew with the backlog.
func openOverload(target string, rs []results.Result) (results.Finding, bool) {
	want := avgOf(rs, func(r results.Result) float64 { return r.TargetRPS })
	got := avgOf(rs, func(r results.Result) float64 {
		if r.AchievedRPS != nil {
			return *r.AchievedRPS
		}
		return r.ThroughputRPS
	})
	if want <= 0 || got <= 0 || got >= want*(1-SaturationTolerance) {
		return results.Finding{}, false
	}
	return results.Finding{
		Kind: KindSaturation, Severity: SeverityWarning, Target: target,
		Evidence: fmt.Sprintf("Open loop at %s req/s achieved only %s req/s (%.0f%%): the target could not keep up, "+
			"so requests waited for a free worker and the corrected latency (P95 %s ms) includes that backlog.",
			num(want), num(got), got/want*100, num(avgOf(rs, func(r results.Result) float64 { return r.Latency.P95 }))),
		Advice: fmt.Sprintf("Capacity is about %s req/s. For latency, rerun at --rate %s or lower.",
			num(got), num(roundSig(got*OpenLoopRate, 2))),
		Values: results.Values{"target_rps": want, "achieved_rps": got, "suggested_rate": roundSig(got*OpenLoopRate, 2)},
	}, true
}

// roundSig rounds x to n significant digits (17.4 -> 17, 558.6 -> 560).
func roundSig(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// num formats a figure for evidence text: three significant digits, no
// exponent, thousands kept whole (1688, 29.1, 0.0493).
func num(x float64) string {
	ax := math.Abs(x)
	switch {
	case ax >= 100:
		return strconv.FormatFloat(math.Round(x), 'f', -1, 64)
	case ax == 0 || math.IsNaN(x) || math.IsInf(x, 0):
		return "0"
	}
	decimals := max(0, 3-int(math.Ceil(math.Log10(ax))))
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
