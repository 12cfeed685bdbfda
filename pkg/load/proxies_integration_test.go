//go:build integration

package load

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/plan"
)

// Real proxies with short keep-alive timeouts in front of a backend that
// counts what it received: HAProxy (the OpenShift router) and nginx close
// idle keep-alive connections between the engine's requests, and every
// request must still be answered exactly once, for GET and POST, in the
// open loop and across attacks separated by a pause (iterations, warm-ups).

const proxyIdle = 100 * time.Millisecond

var haproxyConfig = `global
  maxconn 256
defaults
  mode http
  timeout connect 1s
  timeout client 5s
  timeout server 5s
  timeout http-request 100ms
  timeout http-keep-alive 100ms
frontend fe
  bind 127.0.0.1:%d
  default_backend be
backend be
  server s1 %s
`

var nginxConfig = `daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  keepalive_timeout 100ms;
  server {
    listen 127.0.0.1:%[2]d;
    location / { proxy_pass http://%[3]s; }
  }
}
`

func TestRealProxiesIdleTimeouts(t *testing.T) {
	for _, proxy := range []string{"haproxy", "nginx"} {
		t.Run(proxy, func(t *testing.T) {
			var received atomic.Int64
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				received.Add(1)
				io.WriteString(w, "hello")
			}))
			t.Cleanup(backend.Close)
			url := startProxy(t, proxy, backend.Listener.Addr().String())
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				r := Request{Method: method, URL: url, Body: []byte("grant_type=client_credentials")}
				t.Run(method+"/open", func(t *testing.T) {
					received.Store(0)
					a := attacker(t, plan.Client{})
					// 5 req/s on one connection: 200 ms idle before each send.
					_, res := runAttack(t, a, r, Spec{Rate: 5, Requests: 5, Concurrency: 1})
					assertReceived(t, res.Status, res.Errors, res.ErrorSamples, received.Load(), 5)
				})
				t.Run(method+"/closed-with-pause", func(t *testing.T) {
					received.Store(0)
					a := attacker(t, plan.Client{})
					var status, errs map[string]int64
					for i := range 3 {
						if i > 0 {
							time.Sleep(3 * proxyIdle)
						}
						_, res := runAttack(t, a, r, Spec{Requests: 20, Concurrency: 4})
						status, errs = mergeCounts(status, res.Status), mergeCounts(errs, res.Errors)
					}
					assertReceived(t, status, errs, nil, received.Load(), 60)
				})
			}
		})
	}
}

func assertReceived(t *testing.T, status, errs map[string]int64, samples map[string]string, got, n int64) {
	t.Helper()
	if status["200"] != n || len(status) != 1 || len(errs) != 0 {
		t.Errorf("status %v errors %v (%v), want {200: %d} and no error", status, errs, samples, n)
	}
	if got != n {
		t.Errorf("backend received %d requests, want %d", got, n)
	}
}

// startProxy runs haproxy or nginx in the foreground in its own process
// group, killed with the test (and with this process), and waits until it
// accepts connections, racing its exit.
func startProxy(t *testing.T, name, backend string) string {
	t.Helper()
	// HAProxy is the lab's 2.8 wheel, nginx Debian's: both are what
	// `authbench lab install --optional` (make test's set-up) installs.
	bin, err := toolcache.ToolPath(name)
	if err != nil {
		t.Fatalf("finding %s: %v", name, err)
	}
	port := freePort(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, name+".conf")
	var args []string
	switch name {
	case "haproxy":
		writeFile(t, cfg, fmt.Sprintf(haproxyConfig, port, backend))
		args = []string{"-db", "-f", cfg}
	case "nginx":
		writeFile(t, cfg, fmt.Sprintf(nginxConfig, dir, port, backend))
		args = []string{"-p", dir, "-c", cfg}
	}
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		log.Close()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-exited:
			out, _ := os.ReadFile(log.Name())
			t.Fatalf("%s exited before it was ready: %v\n%s", name, err, out)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return "http://" + addr + "/"
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready on %s after 10s", name, addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
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

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
