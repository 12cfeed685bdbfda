package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// ladderFixture is a 3x ladder with oauth2-proxy throttled, as the migration
// reports' 50m CPU limit left it: the ext_authz layer dominates and limits
// capacity.
func ladderFixture() *results.Ladder {
	q := func(a, b, c float64) results.LadderQuantiles { return results.LadderQuantiles{P50: a, P95: b, P99: c} }
	ci := func(v results.LadderQuantiles, w float64) results.LadderIntervals {
		return results.LadderIntervals{P50: [2]float64{v.P50 - w, v.P50 + w}, P95: [2]float64{v.P95 - 2*w, v.P95 + 2*w}, P99: [2]float64{v.P99 - 4*w, v.P99 + 4*w}}
	}
	total := q(9.8, 61.2, 88.4)
	layer := func(name, kind string, added results.LadderQuantiles, capRPS, own float64) results.LadderLayer {
		return results.LadderLayer{Name: name, Kind: kind, AddedMs: added, CIMs: ci(added, 0.1), CapacityRPS: capRPS, OwnCapacityRPS: own,
			Share: q(added.P50/total.P50, added.P95/total.P95, added.P99/total.P99)}
	}
	return &results.Ladder{
		Target: "lab-3x", Stack: "3x", Model: plan.Open, RateRPS: 61, RateFraction: 0.5, Concurrency: 50,
		SlotDurationS: 2, Rounds: 3, Confidence: 0.95, Resamples: 1000,
		Order: []string{"http-echo-3x", "kube-rbac-proxy", "oauth2-proxy", "nginx", results.EndToEnd},
		Layers: []results.LadderLayer{
			layer("nginx", results.LayerInline, q(0.9, 2.1, 3.4), 118, 3850),
			layer("oauth2-proxy", results.LayerExtAuthz, q(7.2, 55.3, 79.1), 122, 122.9),
			layer("kube-rbac-proxy", results.LayerInline, q(1.1, 2.6, 4.0), 2950, 3660),
			layer("http-echo-3x", results.LayerInline, q(0.35, 0.9, 1.6), 16800, 16800),
		},
		TotalMs: total, TotalCIMs: ci(total, 0.15),
		SumMs: q(9.55, 60.9, 88.1), UnattributedMs: q(0.25, 0.3, 0.3), UnattributedCIMs: ci(q(0.25, 0.3, 0.3), 0.2),
		OverheadMs: q(9.2, 60.0, 86.5), OverheadCIMs: ci(q(9.2, 60.0, 86.5), 0.2),
		Bottleneck: "oauth2-proxy",
		Rungs:      []results.LadderRung{{Layer: results.EndToEnd, CapacityRPS: 117}},
		Hops: []results.HopTiming{
			{Name: "ext_authz subrequest", Layer: "oauth2-proxy", Source: "nginx $upstream_response_time of the auth_request subrequest ($authz_rt)",
				Requests: 366, Ms: q(8, 57, 80), ResolutionMs: 1, LadderMs: q(7.2, 55.3, 79.1), LadderFigure: "added"},
			{Name: "gateway's own time", Layer: "nginx", Missing: "no successful request logged this timer"},
		},
		Notes: []string{"Percentiles do not add."},
	}
}

func TestLatencyBreakdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := LatencyBreakdown(&b, ladderFixture()); err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, "testdata/ladder/breakdown.md", b.Bytes())
	for _, want := range []string{
		"#### lab-3x Latency Breakdown (Total: 61.2 ms P95, measured end to end)",
		"- **oauth2-proxy (ext_authz):** 55.3 ms P95 [55.1 ms, 55.5 ms] (90% of total)",
		"- **Unattributed:** 300 µs P95",
		"**Bottleneck:** oauth2-proxy",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("breakdown lacks %q", want)
		}
	}
}

func TestLadderTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := LadderText(&b, ladderFixture(), "runs/20250101T000000Z-ladder-lab-3x"); err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, "testdata/ladder/text.txt", b.Bytes())
}

func TestLadderHTML(t *testing.T) {
	const secret = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"
	run := &results.Run{Name: "ladder-lab-3x", ID: "x", Start: time.Unix(0, 0),
		Plan:    plan.Plan{Targets: []plan.Target{{Name: "lab-3x/nginx", Headers: []plan.Header{{Name: "Authorization", Value: "Bearer " + secret}}}}},
		Results: []results.Result{{Target: "lab-3x/nginx", Iteration: 1, Latency: results.Latency{P50: 9}}},
		Ladder:  ladderFixture()}
	var b bytes.Buffer
	if err := RunHTML(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="` + ChartWaterfall + `"`, `id="latency-breakdown"`, `id="gateway-timings"`, `class="chart-data"`, "oauth2-proxy (ext_authz)"} {
		if !strings.Contains(page, want) {
			t.Errorf("ladder page lacks %q", want)
		}
	}
	if strings.Contains(page, secret) {
		t.Error("ladder page leaks the token")
	}
	if strings.Index(page, `id="latency-breakdown"`) > strings.Index(page, `id="results"`) {
		t.Error("the breakdown should come before the per-rung results")
	}
}

func TestLadderCosts(t *testing.T) {
	costs := LadderCosts(ladderFixture())
	if len(costs) != 5 || costs[0].Layer != "nginx" || costs[4].Layer != "unattributed" || costs[1].Ms != 55.3 {
		t.Errorf("costs %+v: want the layers' P95 from the client inwards, then the remainder", costs)
	}
}
