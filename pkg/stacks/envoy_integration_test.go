//go:build integration

package stacks_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/testenv"
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
	backend := tlsBackend(t, certs)
	defer backend.Close()
	for _, tc := range []struct {
		mode              stacks.AuthzFailureMode
		slowCode          int
		slowDetails, stat string
	}{
		{stacks.AuthzFailDeny, 403, stacks.GatewayDetailsAuthzError, "http." + stacks.EnvoyStatPrefix + ".ext_authz.error: 1"},
		{stacks.AuthzFailAllow, 200, "", "http." + stacks.EnvoyStatPrefix + ".ext_authz.failure_mode_allowed: 1"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			url, admin := startEnvoy(t, bin, certs, stacks.Gateway{Name: "envoy", Stack: stacks.Stack3x, PathPrefix: "/",
				ExtAuthz: stacks.MustEndpoint(auth.Listener.Addr().String()), Backend: stacks.MustEndpoint(backend.Listener.Addr().String()),
				Timeout: 200 * time.Millisecond, FailureMode: tc.mode, TLS: certs.TLSFiles(), AccessLog: filepath.Join(t.TempDir(), "access.log")})
			hc := client(t, certs.CA)
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

// startEnvoy renders gw on free loopback ports, starts Envoy and waits
// for it; it returns the gateway's and the admin interface's base URLs.
func startEnvoy(t *testing.T, bin string, certs stacks.Certs, gw stacks.Gateway) (string, string) {
	t.Helper()
	gw.Listen = stacks.Endpoint{Host: stacks.Loopback, Port: freePort(t)}
	gw.Admin = stacks.Endpoint{Host: stacks.Loopback, Port: freePort(t)}
	conf := filepath.Join(t.TempDir(), stacks.ConfigGateway)
	if err := stacks.RenderTo(conf, stacks.ConfigGateway, gw); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"-c", conf}, stacks.EnvoyArgs...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	url := fmt.Sprintf("https://127.0.0.1:%d", gw.Listen.Port)
	hc := client(t, certs.CA)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := hc.Get(url + "/ok"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return url, fmt.Sprintf("http://127.0.0.1:%d", gw.Admin.Port)
			}
		}
	}
	t.Fatalf("Envoy never served %s", url)
	return "", ""
}

// tlsBackend is the route's backend: TLS with the lab's certificate, as
// the kube-rbac-proxy sidecar serves.
func tlsBackend(t *testing.T, c stacks.Certs) *httptest.Server {
	t.Helper()
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, stacks.EchoText)
	}))
	pair, err := tls.LoadX509KeyPair(c.Server, c.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	s.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	s.StartTLS()
	return s
}

func client(t *testing.T, ca string) *http.Client {
	t.Helper()
	tc, err := capool.TLSConfig(ca, false)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 10 * time.Second}
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

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
