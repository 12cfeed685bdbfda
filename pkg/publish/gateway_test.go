package publish

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// The gateway's account goes into the documents with its counts and
// names, and nothing of where it was read.
func TestFiguresCarryTheGatewayWithoutItsEndpoint(t *testing.T) {
	r := results.Result{Requests: 10, Status: map[string]int64{"403": 4, "200": 6},
		Answers: map[string]int64{"gateway-authz-error": 4},
		Gateway: &results.Gateway{Kind: results.GatewayEnvoy, Component: "envoy", Requests: 10,
			ExtAuthz: &results.ExtAuthzCounts{OK: 6, Error: 4, Timeouts: 4}}}
	b, err := json.Marshal(figures(r))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, w := range []string{`"gateway":{"kind":"envoy"`, `"error":4`, `"gateway_answers":{"gateway-authz-error":4}`} {
		if !strings.Contains(got, w) {
			t.Errorf("document lacks %s: %s", w, got)
		}
	}
	for _, bad := range []string{"127.0.0.1", "http://", "stats/prometheus"} {
		if strings.Contains(got, bad) {
			t.Errorf("document carries %q: %s", bad, got)
		}
	}
}
