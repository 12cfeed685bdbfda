package analyze

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// instabilityFindings reports a target whose iterations disagree: the
// coefficient of variation of P95 or of throughput above InstabilityCV.
func instabilityFindings(target string, rs []results.Result) []results.Finding {
	if len(rs) < 2 {
		return nil
	}
	p95 := make([]float64, len(rs))
	thr := make([]float64, len(rs))
	for i, r := range rs {
		p95[i], thr[i] = r.Latency.P95, r.ThroughputRPS
	}
	cvP95, cvThr := coefVar(p95), coefVar(thr)
	if cvP95 <= InstabilityCV && cvThr <= InstabilityCV {
		return nil
	}
	return []results.Finding{{
		Kind: KindInstability, Severity: SeverityWarning, Target: target,
		Evidence: fmt.Sprintf("Across %d iterations, P95 was %s ms (CV %.0f%%) and throughput %s req/s (CV %.0f%%); "+
			"above %.0f%% the iterations do not measure the same thing.",
			len(rs), numList(p95), cvP95*100, numList(thr), cvThr*100, InstabilityCV*100),
		Advice: "Do not quote one iteration or the mean alone. Look for drift (warm-up, caches, autoscaling, a noisy " +
			"neighbour, a throttled component), add a warm-up, run more iterations, and compare runs with confidence " +
			"intervals (authbench compare).",
		Values: results.Values{"cv_p95": cvP95, "cv_throughput": cvThr, "iterations": float64(len(rs))},
	}}
}

func numList(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = num(x)
	}
	return strings.Join(s, ", ")
}
