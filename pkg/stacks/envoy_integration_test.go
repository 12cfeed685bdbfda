//go:build integration

package stacks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/testenv/envoytest"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/stacks"
)

// TestEnvoyTellsAuthzErrorsFromDenials runs the gateway template on a
// real Envoy with a 200 ms ext_authz timeout: a denial passes the
// service's status back, a call that outlives the timeout gets Envoy's
// 403 (failure mode deny) or reaches the backend (allow), and the details
// header and Envoy's own counters tell which was which.
func TestEnvoyTellsAuthzErrorsFromDenials(t *testing.T) {
	bin := testenv.NeedTools(t, toolcache.ToolPath, "authbench lab install", stacks.ProgramEnvoy)[0]
	dir := t.TempDir()
	certs, err := stacks.EnsureCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/slow"):
			time.Sleep(time.Second)
		case strings.HasSuffix(r.URL.Path, "/deny"):
			w.WriteHeader(http.StatusForbidden)
		}
		_, _ = io.WriteString(w, "authz")
	}))
	defer auth.Close()
	backend := envoytest.TLSServer(t, certs, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, stacks.EchoText)
	}))
	for _, tc := range []struct {
		mode              stacks.AuthzFailureMode
		slowCode          int
		slowDetails, stat string
	}{
		{stacks.AuthzFailDeny, 403, stacks.GatewayDetailsAuthzError, "http." + stacks.EnvoyStatPrefix + ".ext_authz.error: 1"},
		{stacks.AuthzFailAllow, 200, "", "http." + stacks.EnvoyStatPrefix + ".ext_authz.failure_mode_allowed: 1"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			url, admin := envoytest.Start(t, bin, stacks.Gateway{Name: "envoy", Stack: stacks.Stack3x, PathPrefix: "/",
				ExtAuthz: stacks.MustEndpoint(auth.Listener.Addr().String()), Backend: stacks.MustEndpoint(backend.Listener.Addr().String()),
				Timeout: 200 * time.Millisecond, FailureMode: tc.mode, TLS: certs.TLSFiles(), AccessLog: filepath.Join(t.TempDir(), "access.log")}, certs.CA, "/ok")
			hc := envoytest.Client(t, certs.CA)
			for _, want := range []struct {
				path, details string
				code          int
			}{
				{"/ok", "", 200},
				{"/deny", stacks.GatewayDetailsAuthzDenied, 403},
				{"/slow", tc.slowDetails, tc.slowCode},
			} {
				resp, err := hc.Get(url + want.path)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if d := resp.Header.Get(stacks.GatewayDetailsHeader); resp.StatusCode != want.code || d != want.details {
					t.Errorf("GET %s: %d %q, want %d %q", want.path, resp.StatusCode, d, want.code, want.details)
				}
			}
			stats := get(t, http.DefaultClient, admin+"/stats")
			for _, s := range []string{tc.stat, "http." + stacks.EnvoyStatPrefix + ".ext_authz.denied: 1"} {
				if !strings.Contains(stats, s+"\n") {
					t.Errorf("Envoy's stats lack %q", s)
				}
			}
		})
	}
}

func get(t *testing.T, hc *http.Client, url string) string {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
