//go:build integration

package ladder

import (
	"context"
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

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// nginxConf is the lab's 3x gateway reduced to its ext_authz plumbing,
// with the log format the ladder asks the lab for (NginxLogFormat and the
// auth_request_set of $authz_rt).
const nginxConf = `daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[1]s/tmp; proxy_temp_path %[1]s/tmp; fastcgi_temp_path %[1]s/tmp;
    uwsgi_temp_path %[1]s/tmp; scgi_temp_path %[1]s/tmp;
    %[5]s
    upstream ext_authz { server %[3]s; keepalive 64; }
    upstream backend { server %[4]s; keepalive 64; }
    server {
        listen 127.0.0.1:%[2]d;
        keepalive_requests 10000;
        access_log %[1]s/access.log authbench_ladder buffer=64k flush=1s;
        location / {
            auth_request /_ext_authz;
            auth_request_set $authz_status $upstream_status;
            auth_request_set $authz_rt $upstream_response_time;
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
        location = /_ext_authz {
            internal;
            proxy_pass http://ext_authz$request_uri;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`

// TestNginxTimesTheAuthSubrequest checks the log format proposed for the
// lab against a real nginx: with an ext_authz service that takes 4 ms,
// nginx's own timing of the subrequest and the ladder's figure for the
// auth layer both say about 4 ms.
func TestNginxTimesTheAuthSubrequest(t *testing.T) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
			if _, e := os.Stat(p); e == nil {
				bin, err = p, nil
			}
		}
	}
	if err != nil {
		t.Fatalf("nginx not found (make lab installs it): %v", err)
	}
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		preciseSleep(4 * time.Millisecond)
		_, _ = io.WriteString(w, "Authenticated")
	}))
	defer auth.Close()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "echo response")
	}))
	defer backend.Close()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	conf := fmt.Sprintf(nginxConf, dir, port, auth.Listener.Addr(), backend.Listener.Addr(), NginxLogFormat)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", "stderr")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGQUIT); _ = cmd.Wait() }()
	gw := fmt.Sprintf("http://127.0.0.1:%d/echo", port)
	waitServing(t, gw)
	out, err := Run(context.Background(), Options{
		Plan: onePlan(plan.Target{Name: "nginx", URL: gw, Layers: []string{"nginx", "auth", "echo"},
			Rungs: []plan.Rung{{Layer: "nginx", URL: gw}, {Layer: "auth", URL: auth.URL + "/echo"}, {Layer: "echo", URL: backend.URL + "/echo"}}},
			plan.Load{Duration: plan.Duration(500 * time.Millisecond), Rate: 200, Concurrency: 16}),
		Rounds:        3,
		ProbeDuration: 300 * time.Millisecond, Gateway: &GatewayLog{Path: filepath.Join(dir, "access.log"), Gateway: "nginx"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var hop *results.HopTiming
	for i := range out.Ladder.Hops {
		if out.Ladder.Hops[i].Name == "ext_authz subrequest" {
			hop = &out.Ladder.Hops[i]
		}
	}
	if hop == nil || hop.Missing != "" {
		t.Fatalf("no ext_authz timing from nginx's log: %+v", out.Ladder.Hops)
	}
	// 100 requests a turn, 3 rounds, 2 slots through nginx (its rung and the end-to-end slot).
	if want := int64(600); hop.Requests != want {
		b, _ := os.ReadFile(filepath.Join(dir, "access.log"))
		t.Errorf("nginx logged %d requests during the gateway's turns, want %d (%d lines in all)", hop.Requests, want, strings.Count(string(b), HopMarker))
		for _, s := range out.Run.Results {
			t.Logf("%s %d: %s – %s, %d requests", s.Target, s.Iteration, s.Start.Format("15:04:05.000"), s.End.Format("15:04:05.000"), s.Requests)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if r, ok := ParseHopLine(line); ok {
				t.Logf("%s %v", r.At.Format("15:04:05.000"), r.Ms)
			}
		}
	}
	// nginx logs milliseconds: 4 ms and the hop round to 4 or 5.
	if hop.Ms.P50 < 4 || hop.Ms.P50 > 6 {
		t.Errorf("nginx times the subrequest at P50 %.0f ms, want about 4 ms", hop.Ms.P50)
	}
	if d := hop.Ms.P50 - hop.LadderMs.P50; d < -1 || d > 2 {
		t.Errorf("nginx says %.0f ms, the ladder's auth figure %.2f ms: they should agree within the log's millisecond and one hop",
			hop.Ms.P50, hop.LadderMs.P50)
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

func waitServing(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nginx never served %s", url)
}
