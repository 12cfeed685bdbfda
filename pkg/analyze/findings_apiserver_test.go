package analyze

import (
	"math"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func reviewed(target string, requests int64, meanMs, tr, sar, reviewMsPerReq float64) results.Result {
	return results.Result{Target: target, Requests: requests, Latency: results.Latency{Mean: meanMs},
		APIServer: &results.APIServerReviews{Source: "audit", TokenReviews: int64(tr * float64(requests)),
			SubjectAccessReviews: int64(sar * float64(requests)), ReviewMsPerRequest: reviewMsPerReq}}
}

func TestAPIServerFindingsPerTarget(t *testing.T) {
	tests := []struct {
		name string
		rs   []results.Result
		want int
	}{
		{"every request reviewed, reviews most of the latency",
			[]results.Result{reviewed("oauth", 1000, 2, 1, 1, 1.5), reviewed("oauth", 1000, 2.2, 1, 1, 1.4)}, 1},
		{"cache answers", []results.Result{reviewed("oauth", 1000, 2, 0.002, 0.001, 0.003)}, 0},
		{"reviews made but latency elsewhere", []results.Result{reviewed("oauth", 1000, 20, 1, 1, 1.5)}, 0},
		{"no counts", []results.Result{{Target: "oauth", Requests: 10, Latency: results.Latency{Mean: 1}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := APIServerFindings(&results.Run{Results: tt.rs})
			if len(got) != tt.want {
				t.Fatalf("findings = %+v, want %d", got, tt.want)
			}
			if tt.want == 0 {
				return
			}
			f := got[0]
			if f.Kind != KindAPIServerReviews || f.Target != "oauth" || f.Values["reviews_per_request"] != 2 {
				t.Errorf("finding %+v, want %s on oauth with 2 reviews per request", f, KindAPIServerReviews)
			}
			if !strings.Contains(f.Evidence, "2000 and 2000 over 2000 requests") {
				t.Errorf("evidence %q does not give the counts", f.Evidence)
			}
		})
	}
}

// In a ladder, the gateway's rung carries the reviews of the ext_authz
// service and the sidecar; the formulas charge each layer its own.
func TestAPIServerFindingsLadder(t *testing.T) {
	run := &results.Run{
		Ladder: &results.Ladder{Target: "3x-oauth",
			Layers: []results.LadderLayer{
				{Name: "nginx", Kind: results.LayerInline, AddedMs: results.LadderQuantiles{P50: 0.3}},
				{Name: "ext-authz", Kind: results.LayerExtAuthz, AddedMs: results.LadderQuantiles{P50: 2}},
				{Name: "sidecar", Kind: results.LayerInline, AddedMs: results.LadderQuantiles{P50: 0.4}},
				{Name: "echo", Kind: results.LayerInline, AddedMs: results.LadderQuantiles{P50: 0.2}},
			},
			Rungs: []results.LadderRung{
				{Layer: "echo", Target: "r-echo"}, {Layer: "sidecar", Target: "r-sidecar"},
				{Layer: "ext-authz", Target: "r-ext"}, {Layer: "nginx", Target: "r-nginx"},
				{Layer: results.EndToEnd, Target: "r-e2e"}}},
		Results: []results.Result{
			reviewed("r-echo", 1000, 0.2, 0, 0, 0),
			reviewed("r-sidecar", 1000, 0.6, 0.001, 0.001, 0.002),
			reviewed("r-ext", 1000, 2.2, 1, 1, 1.6),
			reviewed("r-nginx", 1000, 2.9, 1.001, 1.001, 1.602),
		},
	}
	got := APIServerFindings(run)
	if len(got) != 1 {
		t.Fatalf("findings = %+v, want one, on the ext_authz layer", got)
	}
	if f := got[0]; f.Component != "ext-authz" || f.Target != "3x-oauth" || math.Abs(f.Values["review_ms_per_request"]-1.6) > 1e-9 {
		t.Errorf("finding %+v, want ext-authz charged 1.6 ms per request", f)
	}
	run.Results[2].APIServer.ReviewMsPerRequest = 0.5 // a quarter of the layer: not dominating
	run.Results[3].APIServer.ReviewMsPerRequest = 0.502
	if got := APIServerFindings(run); len(got) != 0 {
		t.Errorf("findings = %+v, want none", got)
	}
}
