package ladder

import (
	"bytes"
	"encoding/json"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// spread records n values (µs) evenly from lo to hi: deterministic rungs.
func spread(lo, hi int64, n int) *hdr.Histogram {
	h := hdr.New(1, 3_600_000_000, 3)
	for i := range n {
		_ = h.RecordValue(lo + (hi-lo)*int64(i)/int64(n-1))
	}
	return h
}

// fixtureLadder is a 3x-shaped ladder from fixed histograms: backend
// 0.2–0.6 ms, rbac +1 ms, ext_authz +2 ms, gateway +0.5 ms.
func fixtureLadder(t *testing.T) *results.Ladder {
	t.Helper()
	hists := []*hdr.Histogram{
		spread(200, 600, 2000), spread(1200, 1600, 2000), spread(2200, 2600, 2000),
		spread(3700, 4100, 2000), spread(3700, 4200, 2000),
	}
	names := []string{"http-echo-3x", "kube-rbac-proxy", "oauth2-proxy", "nginx", results.EndToEnd}
	l, err := analyze.AttributeLadder(analyze.LadderInput{
		Layers: []analyze.LadderLayer{
			{Name: "nginx", Rung: 3, URL: "https://127.0.0.1:41008/echo", CapacityRPS: 1510},
			{Name: "oauth2-proxy", Rung: 2, ExtAuthz: true, URL: "http://127.0.0.1:41011/echo", CapacityRPS: 4020},
			{Name: "kube-rbac-proxy", Rung: 1, URL: "https://127.0.0.1:41007/echo", CapacityRPS: 2950},
			{Name: "http-echo-3x", Rung: 0, URL: "http://127.0.0.1:41004/echo", CapacityRPS: 16800},
		},
		Hists: hists, Names: names, EndToEnd: 4, Resamples: 200,
	})
	if err != nil {
		t.Fatal(err)
	}
	l.Target, l.Stack, l.Model, l.RateRPS, l.RateFraction = "lab-3x", "3x", "open", 755, 0.5
	l.Concurrency, l.SlotDurationS, l.Rounds, l.Order = 50, 2, 3, names
	for i, n := range names {
		l.Rungs = append(l.Rungs, results.LadderRung{Layer: n, Target: "lab-3x/" + n, Kind: results.LayerInline,
			CapacityRPS: []float64{16800, 2950, 4020, 1510, 1490}[i], Requests: 4530, Successes: 4530, SuccessRate: 1})
	}
	l.Hops = []results.HopTiming{{Name: "ext_authz subrequest", Layer: "oauth2-proxy", Source: "nginx $upstream_response_time of the auth_request subrequest ($authz_rt)",
		Requests: 9060, Ms: results.LadderQuantiles{P50: 1, P95: 2, P99: 3}, ResolutionMs: 1, LadderMs: l.Layers[1].AddedMs, LadderFigure: "added"}}
	return l
}

func TestJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, fixtureLadder(t)); err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, "testdata/ladder.json", b.Bytes())
}

// TestJSONShape checks the shape scripts read (`ladder --output json`,
// docs/ladder.md), whatever else is added:
// layers [{name, added_ms {p50, p95, p99}, ci_ms, share, capacity_rps}],
// total_ms and unattributed_ms.
func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, fixtureLadder(t)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Layers []map[string]json.RawMessage `json:"layers"`
		Total  map[string]float64           `json:"total_ms"`
		Unattr map[string]float64           `json:"unattributed_ms"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Layers) != 4 {
		t.Fatalf("%d layers, want 4", len(doc.Layers))
	}
	for _, layer := range doc.Layers {
		var name string
		var added, share map[string]float64
		var ci map[string][2]float64
		var capacity float64
		for key, into := range map[string]any{"name": &name, "added_ms": &added, "ci_ms": &ci, "share": &share, "capacity_rps": &capacity} {
			raw, ok := layer[key]
			if !ok {
				t.Fatalf("layer %s has no %q", layer["name"], key)
			}
			if err := json.Unmarshal(raw, into); err != nil {
				t.Fatalf("layer %s, %s: %v", layer["name"], key, err)
			}
		}
		for _, p := range []string{"p50", "p95", "p99"} {
			if _, ok := added[p]; !ok {
				t.Errorf("layer %s: added_ms has no %s", name, p)
			}
			if c, ok := ci[p]; !ok || c[0] > c[1] {
				t.Errorf("layer %s: ci_ms %s = %v", name, p, c)
			}
		}
		if capacity <= 0 {
			t.Errorf("layer %s: capacity_rps %v", name, capacity)
		}
	}
	for _, p := range []string{"p50", "p95", "p99"} {
		if _, ok := doc.Total[p]; !ok {
			t.Errorf("total_ms has no %s", p)
		}
		if _, ok := doc.Unattr[p]; !ok {
			t.Errorf("unattributed_ms has no %s", p)
		}
	}
}
