package analyze

import (
	"fmt"

	"github.com/authbench/authbench/pkg/results"
)

// KindPodsPartial: some generator pods of a run --pods did not deliver
// their result; the figures cover the others.
const KindPodsPartial = "pods-partial"

// podFindings reports, for load run from pods, each generator pod that
// was CPU-throttled (ThrottleRatio) or ran near its limit (LimitUse),
// and pods that did not cover their share.
func podFindings(target string, rs []results.Result) []results.Finding {
	var out []results.Finding
	for _, r := range rs {
		if r.Pods == nil {
			continue
		}
		for _, p := range r.Pods.Pods {
			if f, ok := podBound(target, r.Iteration, p.WithSampled(r.Components)); ok {
				out = append(out, f)
			}
		}
		if c := r.Pods.Coverage; c.Pods < r.Pods.Asked {
			out = append(out, results.Finding{Kind: KindPodsPartial, Severity: SeverityWarning, Target: target,
				Evidence: fmt.Sprintf("iteration %d: %d of %d generator pods delivered their result; the figures cover %d requests over %s s with every pod sending",
					r.Iteration, c.Pods, r.Pods.Asked, c.Requests, num(c.Seconds)),
				Advice: "See the per-pod table for why the others stopped (evicted, failed, never scheduled) and run again for the full load.",
				Values: results.Values{"pods": float64(c.Pods), "asked": float64(r.Pods.Asked), "requests": float64(c.Requests)}})
		}
	}
	return out
}

func podBound(target string, it int, p results.PodStat) (results.Finding, bool) {
	var throttled, use float64
	if p.Periods > 0 {
		throttled = float64(p.ThrottledPeriods) / float64(p.Periods)
	}
	if p.CPULimit > 0 && p.Seconds > 0 {
		use = p.CPUSeconds / p.Seconds / p.CPULimit
	}
	if throttled < ThrottleRatio && use < LimitUse {
		return results.Finding{}, false
	}
	return results.Finding{Kind: KindGeneratorBound, Severity: SeverityWarning, Target: target, Component: p.Name,
		Evidence: fmt.Sprintf("iteration %d: generator pod %s used %s cores of its %s-core limit (%.0f%%), throttled in %.0f%% of its CFS periods",
			it, p.Name, num(p.CPUSeconds/max(p.Seconds, 1e-9)), num(p.CPULimit), use*100, throttled*100),
		Advice: "The pod, not the target, limited the load: raise the generator pods' CPU limit or run more pods.",
		Values: results.Values{"cpu_cores": p.CPUSeconds / max(p.Seconds, 1e-9), "cpu_limit_cores": p.CPULimit, "throttled_ratio": throttled}}, true
}
