package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/results"
)

// gatewayResults are two iterations through the lab's Envoy: one whose
// authz calls timed out, one clean; and one through HAProxy.
func gatewayResults() []results.Result {
	envoy := func(it int, errs, timeouts int64) results.Result {
		n := int64(1500)
		return results.Result{Target: "lab-3x", Iteration: it, Requests: n,
			Status:  map[string]int64{"200": n - errs, "403": errs},
			Answers: map[string]int64{"gateway-authz-error": errs},
			Gateway: &results.Gateway{Kind: results.GatewayEnvoy, Component: "envoy", Seconds: 6, Requests: n + 2,
				ByClass:  map[string]int64{"2xx": n - errs + 2, "4xx": errs},
				ExtAuthz: &results.ExtAuthzCounts{OK: n - errs + 2, Error: errs, Timeouts: timeouts},
				Authz: &results.GatewayTiming{Name: "ext_authz", Count: n - timeouts, MeanMs: 41.2,
					P50: &results.Bucket{LowMs: 25, HighMs: 50}, P99: &results.Bucket{LowMs: 100, HighMs: 250}},
				Upstream: &results.GatewayTiming{Name: "route_backend", Count: n - errs, MeanMs: 3.1,
					P50: &results.Bucket{LowMs: 1, HighMs: 5}, P99: &results.Bucket{LowMs: 5000, Open: true}}}}
	}
	haproxy := results.Result{Target: "lab-2x", Iteration: 1, Requests: 2000, Status: map[string]int64{"200": 2000},
		Gateway: &results.Gateway{Kind: results.GatewayHAProxy, Component: "haproxy", Requests: 2000, ByClass: map[string]int64{"2xx": 2000},
			Upstream:   &results.GatewayTiming{Name: "be_oauth", Count: 2000, MeanMs: 2},
			Downstream: &results.GatewayTiming{Name: "public", Count: 2000, MeanMs: 42}}}
	return []results.Result{envoy(1, 1481, 1481), envoy(2, 0, 0), haproxy}
}

func TestGatewaySection(t *testing.T) {
	s := &summaryWriter{run: &results.Run{}}
	s.gateway(targetRun{name: "lab-3x", results: gatewayResults()})
	got := s.b.String()
	for _, w := range []string{"## The Gateway's Own Account", "21 / 0 / 1,481 (1,481 timed out)",
		"1,481 × 403: 1,481 gateway-authz-error", "P50 (25, 50] ms", "P99 > 5000 ms", "mean 2.00 ms (running mean)"} {
		if !strings.Contains(got, w) {
			t.Errorf("section lacks %q:\n%s", w, got)
		}
	}
	testenv.Golden(t, filepath.Join("testdata", "summary-gateway.golden.md"), []byte(got))
	s = &summaryWriter{run: &results.Run{}}
	s.gateway(targetRun{name: "t", results: []results.Result{{Iteration: 1, Requests: 10}}})
	if s.b.Len() != 0 {
		t.Errorf("a run without a gateway account got a section: %q", s.b.String())
	}
}

func TestGatewayHTMLTable(t *testing.T) {
	run := &results.Run{Name: "r", ID: "id", Results: gatewayResults()}
	var b strings.Builder
	if err := RunHTML(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `id="gateway"`) || !strings.Contains(b.String(), "gateway-authz-error") {
		t.Error("the run's page has no gateway table")
	}
	var d strings.Builder
	if err := DemoHTML(&d, DemoPage{Title: "demo", Steps: []DemoStep{{ID: "limit", Title: "limit", Runs: []*results.Run{run}}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.String(), `id="limit-gateway"`) {
		t.Error("the demo's page has no gateway table")
	}
}

func TestErrorsSectionSplitsGatewayAnswers(t *testing.T) {
	s := &summaryWriter{run: &results.Run{}}
	s.errorsSection(targetRun{name: "lab-3x", results: gatewayResults()[:1]})
	for _, w := range []string{"| HTTP 4xx | 403 Forbidden | 1,481 |", "| of which the gateway's | gateway-authz-error | 1,481 |", "not a denial"} {
		if !strings.Contains(s.b.String(), w) {
			t.Errorf("errors section lacks %q:\n%s", w, s.b.String())
		}
	}
}
