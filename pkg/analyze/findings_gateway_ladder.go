package analyze

import (
	"fmt"
	"math"

	"github.com/authbench/authbench/pkg/results"
)

// gatewayLadderFindings set the gateway's own timing of its ext_authz
// calls and of its upstream beside the ladder's figures for the same
// layers: the ext_authz layer's added latency, and the rung of the layer
// the gateway forwards to. Nothing without a ladder or a gateway account.
func gatewayLadderFindings(run *results.Run) []results.Finding {
	l := run.Ladder
	if l == nil || len(l.Layers) < 2 {
		return nil
	}
	var authz, upstream []*results.GatewayTiming
	component := ""
	for _, r := range run.Results {
		if g := r.Gateway; g != nil {
			authz, upstream, component = append(authz, g.Authz), append(upstream, g.Upstream), g.Component
		}
	}
	var out []results.Finding
	for i, layer := range l.Layers {
		switch {
		case layer.Kind == results.LayerExtAuthz:
			if f, ok := timingBeside(l, component, "its ext_authz calls", layer.Name+"'s added latency", authz,
				layer.AddedMs.P50, layer.CIMs.P50); ok {
				out = append(out, f)
			}
		case i > 0 && layer.Kind == results.LayerInline && firstInlineInside(l, i):
			rung := rungOf(l, layer.Name)
			if rung == nil {
				continue
			}
			ci := [2]float64{rung.LatencyMs.P50, rung.LatencyMs.P50}
			if f, ok := timingBeside(l, component, "its upstream requests", layer.Name+"'s rung", upstream,
				rung.LatencyMs.P50, ci); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// firstInlineInside: layer i is the first inline layer inside the
// gateway, the one it forwards to.
func firstInlineInside(l *results.Ladder, i int) bool {
	for _, x := range l.Layers[1:i] {
		if x.Kind == results.LayerInline {
			return false
		}
	}
	return true
}

func rungOf(l *results.Ladder, layer string) *results.LadderRung {
	for i := range l.Rungs {
		if l.Rungs[i].Layer == layer {
			return &l.Rungs[i]
		}
	}
	return nil
}

// timingBeside is one comparison: the buckets holding the gateway's P50
// over the ladder's turns against the ladder's P50 and its interval.
func timingBeside(l *results.Ladder, component, what, figure string, ts []*results.GatewayTiming, ladderP50 float64, ci [2]float64) (results.Finding, bool) {
	lo, hi, n, sum := math.Inf(1), 0.0, int64(0), 0.0
	for _, t := range ts {
		if t == nil || t.P50 == nil {
			continue
		}
		lo = math.Min(lo, t.P50.LowMs)
		if t.P50.Open {
			hi = math.Inf(1)
		} else {
			hi = math.Max(hi, t.P50.HighMs)
		}
		n, sum = n+t.Count, sum+t.MeanMs*float64(t.Count)
	}
	if n == 0 {
		return results.Finding{}, false
	}
	agree := ci[1] > lo && ci[0] <= hi
	ev := fmt.Sprintf("The gateway timed %s at P50 in %s (the bucket of its own histogram, over %d requests during the ladder; mean %s ms); "+
		"the ladder gives %s %s ms at P50", what, bucketRange(lo, hi), n, num(sum/float64(n)), figure, num(ladderP50))
	if ci[0] != ci[1] {
		ev += fmt.Sprintf(" [%s, %s]", num(ci[0]), num(ci[1]))
	}
	adv := "They agree: the ladder's attribution of this layer is the gateway's own."
	if agree {
		ev += ": they agree."
	} else {
		ev += ": they disagree."
		adv = "The ladder times the layer from the client, on its own connections and in its own turn, with the caches as the rungs before it left them; " +
			"the gateway times it from its connection pool while serving the end-to-end requests, behind its own queue. " +
			"A cache that one turn warms and the other pays for (token reviews), or queueing in the gateway, separates them: " +
			"read the gateway's access-log hops beside the ladder, which time every request exactly."
	}
	return results.Finding{Kind: KindGatewayTiming, Severity: SeverityInfo, Target: l.Target, Component: component,
		Evidence: ev, Advice: adv,
		Values: results.Values{"gateway_p50_low_ms": lo, "gateway_p50_high_ms": finiteOr(hi, -1), "gateway_mean_ms": sum / float64(n),
			"ladder_p50_ms": ladderP50, "ladder_p50_ci_low_ms": ci[0], "ladder_p50_ci_high_ms": ci[1], "agree": boolValue(agree)}}, true
}

func bucketRange(lo, hi float64) string {
	if math.IsInf(hi, 1) {
		return fmt.Sprintf("> %s ms", num(lo))
	}
	return fmt.Sprintf("(%s, %s] ms", num(lo), num(hi))
}

func finiteOr(v, or float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return or
	}
	return v
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
