//go:build integration

package ladder

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/testenv/envoytest"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// TestEnvoyTimesTheAuthCall checks the lab's gateway config (the
// template every platform renders) and its access log against a real
// Envoy: with an ext_authz service that takes 4 ms, Envoy's own timing of
// the call and the ladder's figure for the auth layer both say about 4 ms.
func TestEnvoyTimesTheAuthCall(t *testing.T) {
	bin := testenv.NeedTools(t, toolcache.ToolPath, "authbench lab install", stacks.ProgramEnvoy)[0]
	dir := t.TempDir()
	certs, err := stacks.EnsureCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		preciseSleep(4 * time.Millisecond)
		_, _ = io.WriteString(w, "Authenticated")
	}))
	defer auth.Close()
	backend := envoytest.TLSServer(t, certs, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "echo response")
	}))
	log := filepath.Join(dir, "access.log")
	gw := stacks.Gateway{Name: "envoy", Stack: stacks.Stack3x, PathPrefix: "/",
		ExtAuthz: stacks.MustEndpoint(auth.Listener.Addr().String()), Backend: stacks.MustEndpoint(backend.Listener.Addr().String()),
		Timeout: stacks.DefaultAuthzTimeout, FailureMode: stacks.DefaultAuthzFailureMode, TLS: certs.TLSFiles(), AccessLog: log}
	base, _ := envoytest.Start(t, bin, gw, certs.CA, "/echo")
	url := base + "/echo"
	p := onePlan(plan.Target{Name: "envoy", URL: url, Layers: []string{"envoy", "auth", "echo"},
		Rungs: []plan.Rung{{Layer: "envoy", URL: url}, {Layer: "auth", URL: auth.URL + "/echo"}, {Layer: "echo", URL: backend.URL + "/echo"}}},
		plan.Load{Duration: plan.Duration(500 * time.Millisecond), Rate: 200, Concurrency: 16})
	p.Client.CACert = certs.CA
	out, err := Run(context.Background(), Options{Plan: p, Rounds: 3,
		ProbeDuration: 300 * time.Millisecond, Gateway: &GatewayLog{Path: log, Gateway: "envoy"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var hop *results.HopTiming
	for i := range out.Ladder.Hops {
		if out.Ladder.Hops[i].Name == hopExtAuthz {
			hop = &out.Ladder.Hops[i]
		}
	}
	if hop == nil || hop.Missing != "" {
		t.Fatalf("no ext_authz timing from Envoy's log: %+v", out.Ladder.Hops)
	}
	// 100 requests a turn, 3 rounds, 2 slots through Envoy (its rung and the end-to-end slot).
	if want := int64(600); hop.Requests != want {
		b, _ := os.ReadFile(log)
		t.Errorf("Envoy logged %d requests during the gateway's turns, want %d (%d lines in all)", hop.Requests, want, strings.Count(string(b), HopMarker))
		for _, s := range out.Run.Results {
			t.Logf("%s %d: %s – %s, %d requests", s.Target, s.Iteration, s.Start.Format("15:04:05.000"), s.End.Format("15:04:05.000"), s.Requests)
		}
	}
	if hop.Ms.P50 < 4 || hop.Ms.P50 > 6 {
		t.Errorf("Envoy times the ext_authz call at P50 %.2f ms, want about 4 ms", hop.Ms.P50)
	}
	if d := hop.Ms.P50 - hop.LadderMs.P50; d < -1 || d > 2 {
		t.Errorf("Envoy says %.2f ms, the ladder's auth figure %.2f ms: they should agree within one hop",
			hop.Ms.P50, hop.LadderMs.P50)
	}
}
