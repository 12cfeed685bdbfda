//go:build integration

package importer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
)

// server answers 200, and 403 to every 10th request on /mixed; it counts
// what it answered so the test can check the tools' counts end to end.
type server struct {
	n, ok, forbidden atomic.Int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := s.n.Add(1); r.URL.Path == "/mixed" && n%10 == 0 {
		s.forbidden.Add(1)
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	s.ok.Add(1)
	_, _ = w.Write([]byte("hello-world\n"))
}

// runTool runs a load tool against the test server, bounded in time, and
// saves its output as a file the importer reads.
func runTool(t *testing.T, name string, args ...string) (string, string) {
	t.Helper()
	bin := testenv.NeedTools(t, exec.LookPath, "apt-get install -y "+name, name)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	f := filepath.Join(t.TempDir(), name+".txt")
	if err := os.WriteFile(f, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return f, string(out)
}

// printed reads a number the tool printed, independently of the importer.
func printed(t *testing.T, out, pattern string) float64 {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%q not in output:\n%s", pattern, out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRealHey(t *testing.T) {
	srv := &server{}
	ts := httptest.NewServer(srv) // binds 127.0.0.1:0
	defer ts.Close()
	f1, out1 := runTool(t, "hey", "-n", "2000", "-c", "10", ts.URL+"/")
	f2, out2 := runTool(t, "hey", "-n", "1000", "-c", "10", ts.URL+"/mixed")
	// Two outputs in one file, as the migration reports' logs.
	both := filepath.Join(t.TempDir(), "both.log")
	if err := os.WriteFile(both, []byte(out1+"\n=== next ===\n"+out2), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := Hey([]string{both}, "echo")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 2 {
		t.Fatalf("iterations = %d, want 2", len(run.Results))
	}
	a, b := run.Results[0], run.Results[1]
	if a.Requests != 2000 || a.Successes != 2000 || a.Status["200"] != 2000 {
		t.Errorf("first output: %d requests, %d ok, status %v", a.Requests, a.Successes, a.Status)
	}
	if b.Requests != 1000 || b.Status["403"] != srv.forbidden.Load() || b.Status["403"] != 100 || b.Successes != 900 {
		t.Errorf("second output: %d requests, status %v; server sent %d x 403", b.Requests, b.Status, srv.forbidden.Load())
	}
	for _, c := range []struct {
		got     float64
		pattern string
	}{
		{a.Latency.P50, `50% in ([\d.]+) secs`},
		{a.Latency.P95, `95% in ([\d.]+) secs`},
		{a.Latency.P99, `99% in ([\d.]+) secs`},
		{a.Latency.Mean, `Average:\s+([\d.]+) secs`},
		{a.Latency.Max, `Slowest:\s+([\d.]+) secs`},
	} {
		if want := printed(t, out1, c.pattern) * 1000; !approx(c.got, want) {
			t.Errorf("%s: imported %g ms, hey printed %g ms", c.pattern, c.got, want)
		}
	}
	if want := printed(t, out1, `Requests/sec:\s+([\d.]+)`); !approx(a.ThroughputRPS, want) {
		t.Errorf("throughput %g, hey printed %g", a.ThroughputRPS, want)
	}
	// Separate files give the same iterations.
	sep, err := Hey([]string{f1, f2}, "echo")
	if err != nil || len(sep.Results) != 2 || sep.Results[1].Status["403"] != 100 {
		t.Errorf("separate files: %v, %v", sep, err)
	}
}

func TestRealWrk(t *testing.T) {
	srv := &server{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	f, out := runTool(t, "wrk", "-t1", "-c10", "-d1s", "--latency", ts.URL+"/mixed")
	run, err := Wrk([]string{f}, "echo")
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	completed := int64(printed(t, out, `(\d+) requests in`))
	served := srv.ok.Load() + srv.forbidden.Load()
	if r.Requests != completed || completed == 0 || completed > served {
		t.Errorf("requests %d, wrk printed %d, server answered %d", r.Requests, completed, served)
	}
	non2xx := int64(printed(t, out, `Non-2xx or 3xx responses: (\d+)`))
	if r.Status[WrkNon2xx] != non2xx || r.Successes != completed-non2xx {
		t.Errorf("non-2xx %d (printed %d), successes %d", r.Status[WrkNon2xx], non2xx, r.Successes)
	}
	// Every 10th answer was a 403; wrk may miss those still in flight at the end.
	if d := srv.forbidden.Load() - non2xx; d < 0 || d > 10 {
		t.Errorf("server sent %d x 403, wrk counted %d", srv.forbidden.Load(), non2xx)
	}
	if want := printed(t, out, `Requests/sec:\s+([\d.]+)`); !approx(r.ThroughputRPS, want) {
		t.Errorf("throughput %g, wrk printed %g", r.ThroughputRPS, want)
	}
	p50, err := wrkTime(regexp.MustCompile(`(?m)^\s+50%\s+(\S+)`).FindStringSubmatch(out)[1])
	if err != nil || !approx(r.Latency.P50, p50) || r.Latency.P50 <= 0 {
		t.Errorf("P50 %g, wrk printed %g (%v)", r.Latency.P50, p50, err)
	}
	if run.Plan.Load.Concurrency != 10 || run.Plan.Targets[0].URL != ts.URL+"/mixed" {
		t.Errorf("plan = %+v", run.Plan)
	}
}
