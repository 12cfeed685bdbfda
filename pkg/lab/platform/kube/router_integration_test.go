//go:build integration

package kube_test

import (
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// checkRouter: 2x's router pod runs the wheel's HAProxy 2.8, `lab status`
// says the version its binary reports, and its Prometheus exporter, on the
// loopback port the state names, counts the route's requests.
func checkRouter(t *testing.T, hc *http.Client, dir string, s *lab.State) {
	if v := component(t, s, stacks.HAProxy).Version; v != toolcache.HAProxyVersion {
		t.Errorf("state: haproxy version %q, want %s", v, toolcache.HAProxyVersion)
	}
	st := authbench(t, time.Minute, "lab", "status", "--lab-dir", dir)
	found := false
	for _, l := range strings.Split(st, "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[0] == stacks.HAProxy && f[4] == toolcache.HAProxyVersion {
			found = true
		}
	}
	if !found {
		t.Errorf("lab status has no haproxy line with %s:\n%s", toolcache.HAProxyVersion, st)
	}
	port, ok := s.Ports[stacks.PortHAProxyMetrics]
	if !ok {
		t.Fatalf("no port %s in the state: %v", stacks.PortHAProxyMetrics, s.Ports)
	}
	tg := stackTarget(t, s, stacks.Stack2x)
	alice := secret(t, filepath.Join(dir, "tokens", "alice"))
	if got := status(t, hc, tg.URL, alice); got != 200 {
		t.Fatalf("%s as alice: %d", tg.URL, got)
	}
	resp, err := hc.Get("http://" + stacks.Loopback + ":" + strconv.Itoa(port) + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	const series = `haproxy_frontend_http_requests_total{proxy="route"} `
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, series); ok {
			if n, err := strconv.ParseFloat(v, 64); err != nil || n < 1 {
				t.Errorf("exporter: %q, want at least the request just made", l)
			}
			return
		}
	}
	t.Errorf("the exporter (status %d) has no %s", resp.StatusCode, strings.TrimSpace(series))
}

func stackTarget(t *testing.T, s *lab.State, stack string) lab.StackTarget {
	t.Helper()
	for _, tg := range s.Targets {
		if tg.Stack == stack {
			return tg
		}
	}
	t.Fatalf("no target of stack %s", stack)
	return lab.StackTarget{}
}
