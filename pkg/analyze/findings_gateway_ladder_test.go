package analyze

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// ladderRun is a 3x ladder whose end-to-end turns carry Envoy's account.
func ladderRun(authzP50 results.Bucket) *results.Run {
	lad := &results.Ladder{Target: "lab-3x",
		Layers: []results.LadderLayer{
			{Name: "envoy", Kind: results.LayerInline},
			{Name: "oauth2-proxy", Kind: results.LayerExtAuthz, AddedMs: results.LadderQuantiles{P50: 6.89},
				CIMs: results.LadderIntervals{P50: [2]float64{6.69, 7.17}}},
			{Name: "kube-rbac-proxy", Kind: results.LayerInline},
			{Name: "http-echo-3x", Kind: results.LayerInline},
		},
		Rungs: []results.LadderRung{{Layer: "kube-rbac-proxy", LatencyMs: results.LadderQuantiles{P50: 3.2}}},
	}
	up := results.Bucket{LowMs: 1, HighMs: 5}
	var rs []results.Result
	for i := 1; i <= 3; i++ {
		rs = append(rs, results.Result{Target: "lab-3x@end-to-end", Iteration: i, Gateway: &results.Gateway{Kind: results.GatewayEnvoy, Component: "envoy",
			Authz:    &results.GatewayTiming{Count: 100, MeanMs: 8, P50: &authzP50},
			Upstream: &results.GatewayTiming{Count: 100, MeanMs: 3, P50: &up}}})
	}
	return &results.Run{Ladder: lad, Results: rs}
}

func TestGatewayLadderFindings(t *testing.T) {
	tests := []struct {
		name   string
		bucket results.Bucket
		agree  string
	}{
		{"agree", results.Bucket{LowMs: 5, HighMs: 10}, "they agree"},
		{"the gateway's calls slower", results.Bucket{LowMs: 10, HighMs: 25}, "they disagree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := gatewayLadderFindings(ladderRun(tt.bucket))
			if len(fs) != 2 {
				t.Fatalf("%d findings, want ext_authz and upstream: %+v", len(fs), fs)
			}
			a, u := fs[0], fs[1]
			if !strings.Contains(a.Evidence, "ext_authz calls") || !strings.Contains(a.Evidence, "6.89 ms at P50 [6.69, 7.17]") ||
				!strings.Contains(a.Evidence, tt.agree) {
				t.Errorf("ext_authz: %s", a.Evidence)
			}
			if tt.agree == "they disagree" && !strings.Contains(a.Advice, "access-log hops") {
				t.Errorf("no explanation: %s", a.Advice)
			}
			if !strings.Contains(u.Evidence, "kube-rbac-proxy's rung 3.2") || !strings.Contains(u.Evidence, "they agree") {
				t.Errorf("upstream: %s", u.Evidence)
			}
		})
	}
	if fs := gatewayLadderFindings(&results.Run{Ladder: ladderRun(results.Bucket{}).Ladder}); len(fs) != 0 {
		t.Errorf("a ladder without a gateway account: %+v", fs)
	}
}
