// Package envoytest runs the lab's gateway template on a real Envoy for a
// test: the one harness behind every test that checks what the rendered
// config does (its answers, counters and access log).
package envoytest

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/pkg/stacks"
)

// Start renders gw into a temporary directory, giving its listener and
// admin interface free loopback ports where they have none, starts Envoy
// (bin) and waits until ready, a path on the listener, answers 200 over
// TLS trusted by caFile. It returns the listener's and the admin
// interface's base URLs; Envoy is stopped when the test ends.
func Start(t *testing.T, bin string, gw stacks.Gateway, caFile, ready string) (string, string) {
	t.Helper()
	if gw.Listen.Port == 0 {
		gw.Listen = stacks.Endpoint{Host: stacks.Loopback, Port: FreePort(t)}
	}
	if gw.Admin.Port == 0 {
		gw.Admin = stacks.Endpoint{Host: stacks.Loopback, Port: FreePort(t)}
	}
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
	hc := Client(t, caFile)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := hc.Get(url + ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, fmt.Sprintf("http://127.0.0.1:%d", gw.Admin.Port)
			}
		}
	}
	t.Fatalf("Envoy never served %s%s", url, ready)
	return "", ""
}

// TLSServer serves h over TLS with the lab's server certificate, as the
// kube-rbac-proxy sidecar behind the gateway does.
func TLSServer(t *testing.T, c stacks.Certs, h http.Handler) *httptest.Server {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(c.Server, c.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// Client trusts caFile.
func Client(t *testing.T, caFile string) *http.Client {
	t.Helper()
	tc, err := capool.TLSConfig(caFile, false)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 10 * time.Second}
}

// FreePort is a loopback port free when asked.
func FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
