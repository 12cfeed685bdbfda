package analyze

import (
	"fmt"

	"github.com/authbench/authbench/pkg/results"
)

// KindAPIServerReviews is the finding that the authentication path's
// TokenReviews and SubjectAccessReviews take most of a layer's latency.
const KindAPIServerReviews = "apiserver-reviews"

// APIServerDominates is the share of a target's mean latency (or a
// layer's added P50) that the API server's review time per request must
// reach for the reviews to be reported as dominating it; MinReviewsPerRequest
// is the review rate below which a cache is answering and nothing is
// reported.
const (
	APIServerDominates   = 0.5
	MinReviewsPerRequest = 0.1
)

// reviewTotals sums an APIServerReviews over results.
type reviewTotals struct {
	requests, tr, sar int64
	reviewMs          float64 // API server review time, summed over requests
	latencyMs         float64 // mean latency × requests, summed
	source            string
}

func sumReviews(rs []results.Result) (reviewTotals, bool) {
	var t reviewTotals
	for _, r := range rs {
		a := r.APIServer
		if a == nil || r.Requests == 0 {
			continue
		}
		t.requests += r.Requests
		t.tr += a.TokenReviews
		t.sar += a.SubjectAccessReviews
		t.reviewMs += a.ReviewMsPerRequest * float64(r.Requests)
		t.latencyMs += r.Latency.Mean * float64(r.Requests)
		t.source = a.Source
	}
	return t, t.requests > 0
}

func (t reviewTotals) perRequest() (reviews, ms float64) {
	n := float64(t.requests)
	return float64(t.tr+t.sar) / n, t.reviewMs / n
}

// APIServerFindings reports where the API server's reviews dominate: per
// layer of a ladder run (the layer's share of review time, by the ladder's
// own formulas, against its added P50), else per target (review time per
// request against the mean latency).
func APIServerFindings(run *results.Run) []results.Finding {
	if run == nil {
		return nil
	}
	if run.Ladder != nil {
		return ladderAPIServerFindings(run)
	}
	var out []results.Finding
	names, by := targetResults(run.Results)
	for _, name := range names {
		t, ok := sumReviews(by[name])
		if !ok || t.latencyMs <= 0 {
			continue
		}
		reviews, ms := t.perRequest()
		mean := t.latencyMs / float64(t.requests)
		if reviews < MinReviewsPerRequest || ms < APIServerDominates*mean {
			continue
		}
		ev := fmt.Sprintf("Each request caused %s TokenReviews and %s SubjectAccessReviews at the API server (%d and %d over %d requests, counted from its %s); serving them took %s ms per request, %s%% of the mean latency of %s ms.",
			num(float64(t.tr)/float64(t.requests)), num(float64(t.sar)/float64(t.requests)),
			t.tr, t.sar, t.requests, t.source, num(ms), num(100*ms/mean), num(mean))
		out = append(out, apiserverFinding(name, "", ev, reviews, ms, mean))
	}
	return out
}

func apiserverFinding(target, layer, ev string, reviews, ms, latency float64) results.Finding {
	return results.Finding{
		Kind: KindAPIServerReviews, Severity: SeverityWarning, Target: target, Component: layer,
		Evidence: ev,
		Advice: "Each review is a round trip to the API server on the request's path: the auth proxy's cache is not answering. " +
			"Real traffic with many users' tokens misses a per-token cache the same way. Check the proxy's cache (TTL, size, whether it is on), " +
			"its client-side rate limit to the API server (client-go defaults to 5 QPS, burst 10), and the API server's own latency.",
		Values: results.Values{"reviews_per_request": reviews, "review_ms_per_request": ms,
			"latency_ms": latency, "share": ms / latency},
	}
}

// ladderAPIServerFindings applies each layer's formula to the rungs'
// review time per request, so a layer is charged the reviews it adds (an
// ext_authz rung answers alone; a gateway's rung includes the reviews of
// every layer inside it, which its formula subtracts).
func ladderAPIServerFindings(run *results.Run) []results.Finding {
	lad := run.Ladder
	_, by := targetResults(run.Results)
	var layers []LadderLayer
	var names []string
	ms := map[int]float64{}
	reviews := map[int]float64{}
	rungOf := map[string]int{}
	for _, r := range lad.Rungs {
		if r.Layer == results.EndToEnd {
			continue
		}
		i := len(names)
		rungOf[r.Layer] = i
		names = append(names, r.Target)
		if t, ok := sumReviews(by[r.Target]); ok {
			reviews[i], ms[i] = t.perRequest()
		}
	}
	for _, l := range lad.Layers {
		i, ok := rungOf[l.Name]
		if !ok {
			i = -1
		}
		layers = append(layers, LadderLayer{Name: l.Name, ExtAuthz: l.Kind == results.LayerExtAuthz, Rung: i})
	}
	if len(ms) == 0 {
		return nil
	}
	forms, _, err := LadderFormulas(layers, names)
	if err != nil {
		return nil
	}
	var out []results.Finding
	for i, l := range lad.Layers {
		f := forms[i]
		if f == nil || l.AddedMs.P50 <= 0 {
			continue
		}
		lms := evalTerms(f.Terms, func(h int) float64 { return ms[h] })
		lrev := evalTerms(f.Terms, func(h int) float64 { return reviews[h] })
		if lrev < MinReviewsPerRequest || lms < APIServerDominates*l.AddedMs.P50 {
			continue
		}
		ev := fmt.Sprintf("Layer %s adds %s API server reviews per request (%s); serving them took the API server %s ms per request, %s%% of the layer's added P50 of %s ms.",
			l.Name, num(lrev), f.Text, num(lms), num(100*lms/l.AddedMs.P50), num(l.AddedMs.P50))
		out = append(out, apiserverFinding(lad.Target, l.Name, ev, lrev, lms, l.AddedMs.P50))
	}
	return out
}
