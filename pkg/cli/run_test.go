package cli

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// TestRunExactCounts checks that -n is exact end to end: the server
// receives exactly the requests run.json reports (plus the one probe that
// fingerprints the backend, plus any warm-up), every iteration has exactly
// -n, and nothing on stdout or stderr is a progress bar.
func TestRunExactCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		n          int64
		iterations int
		warmup     int64
	}{
		{"one request, one worker", []string{"-n", "1", "-c", "1"}, 1, 1, 0},
		{"uneven split over workers", []string{"-n", "37", "-c", "5"}, 37, 1, 0},
		{"as many workers as requests", []string{"-n", "50", "-c", "50"}, 50, 1, 0},
		{"three iterations", []string{"-n", "101", "-c", "7", "--iterations", "3"}, 101, 3, 0},
		{"warm-up is sent but not recorded", []string{"-n", "40", "-c", "4", "--warmup", "13", "--iterations", "2"}, 40, 2, 13},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newCounted(t, nil)
			out := t.TempDir()
			args := append([]string{"run", "--out", out}, tc.args...)
			r := mustRun(t, ExitOK, append(args, srv.URL+"/count")...)
			noEscapes(t, "stdout", r.stdout)
			noEscapes(t, "stderr", r.stderr)
			run, _ := readRun(t, runDir(t, out))
			if len(run.Results) != tc.iterations {
				t.Fatalf("run.json has %d results, want %d (one per iteration)", len(run.Results), tc.iterations)
			}
			for _, res := range run.Results {
				if res.Requests != tc.n || res.Successes != tc.n || res.Status["200"] != tc.n {
					t.Errorf("iteration %d: requests %d, successes %d, status %v; want exactly %d",
						res.Iteration, res.Requests, res.Successes, res.Status, tc.n)
				}
			}
			if p := probes(run); p != 1 {
				t.Errorf("run.json records %d answered probes, want 1", p)
			}
			want := totalRequests(run) + probes(run) + tc.warmup
			if got := srv.n.Load(); got != want || totalRequests(run) != tc.n*int64(tc.iterations) {
				t.Errorf("server counted %d requests; run.json %d (+%d probe, +%d warm-up); want %d×%d",
					got, totalRequests(run), probes(run), tc.warmup, tc.n, tc.iterations)
			}
		})
	}
}

// TestRunOutputJSON checks --output json: stdout is exactly one JSON
// document, equal to the run.json written to disk, and the human messages
// went to stderr.
func TestRunOutputJSON(t *testing.T) {
	t.Parallel()
	srv := newCounted(t, nil)
	out := t.TempDir()
	r := mustRun(t, ExitOK, "run", "-n", "30", "-c", "3", "--iterations", "2", "--output", "json", "--out", out, srv.URL)
	noEscapes(t, "stdout", r.stdout)
	noEscapes(t, "stderr", r.stderr)

	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var stdoutDoc any
	if err := dec.Decode(&stdoutDoc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Errorf("stdout holds more than one JSON document (next: %v, err %v)", extra, err)
	}
	dir := runDir(t, out)
	b, err := os.ReadFile(filepath.Join(dir, results.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	var diskDoc any
	if err := json.Unmarshal(b, &diskDoc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stdoutDoc, diskDoc) {
		t.Errorf("stdout JSON differs from %s", filepath.Join(dir, results.RunFile))
	}
	for _, want := range []string{"iteration 1/2", "iteration 2/2"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks the progress message %q", r.stderr, want)
		}
	}
	for _, hey := range []string{"Summary:", "Latency distribution:", "Results:"} {
		if strings.Contains(r.stdout, hey) {
			t.Errorf("stdout holds the text report (%q) besides the JSON", hey)
		}
	}
}

// TestRunOpenLoop holds the timing-sensitive open-loop tests. It is not
// parallel: Go runs it before the parallel tests start, so its two
// subtests share the machine only with each other, not with closed loops
// sending as fast as they can in the same process.
func TestRunOpenLoop(t *testing.T) {
	t.Run("holds its rate", testOpenLoopRate)
	t.Run("stall shows in corrected latency", testOpenLoopStall)
}

// testOpenLoopRate checks -q through the CLI: the rate is held (loose
// bounds: this is a correctness test, the 1% goal is a benchmark) and the
// open-loop fields are written.
func testOpenLoopRate(t *testing.T) {
	t.Parallel()
	srv := newCounted(t, nil)
	out := t.TempDir()
	mustRun(t, ExitOK, "run", "-q", "200", "-z", "2s", "-c", "10", "--out", out, srv.URL)
	run, raw := readRun(t, runDir(t, out))
	if len(run.Results) != 1 {
		t.Fatalf("%d results, want 1", len(run.Results))
	}
	res := run.Results[0]
	for _, key := range []string{"latency_uncorrected_ms", "late_sends", "achieved_rps"} {
		if _, ok := rawResult(t, raw, 0)[key]; !ok {
			t.Errorf("run.json result lacks %q", key)
		}
	}
	if res.Model != "open" || res.TargetRPS != 200 {
		t.Errorf("model %q at %g req/s, want open at 200", res.Model, res.TargetRPS)
	}
	if res.AchievedRPS == nil || *res.AchievedRPS < 170 || *res.AchievedRPS > 230 {
		t.Errorf("achieved %v req/s, want about 200", res.AchievedRPS)
	}
	if res.Requests < 340 || res.Requests > 460 {
		t.Errorf("%d requests in 2 s at 200 req/s, want about 400", res.Requests)
	}
	if res.LatencyUncorrected == nil || res.LatencyUncorrected.P50 <= 0 || res.Latency.P50 < res.LatencyUncorrected.P50 {
		t.Errorf("latency %+v, uncorrected %+v: want both, corrected ≥ uncorrected", res.Latency, res.LatencyUncorrected)
	}
	if got := srv.n.Load() - probes(run); got < res.Requests || got > res.Requests+10 {
		t.Errorf("server got %d load requests, run.json counts %d", got, res.Requests)
	}
}

// testOpenLoopStall checks coordinated-omission correction end to end:
// with one connection, one request that stalls for 1 s holds up about a
// hundred scheduled requests. Their wait shows in the corrected p99 (from
// intended send time) and not in the uncorrected one (from actual send).
func testOpenLoopStall(t *testing.T) {
	t.Parallel()
	var srv *counted
	srv = newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		if srv.n.Load() == 31 { // the 30th load request, after the probe
			time.Sleep(time.Second)
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	out := t.TempDir()
	mustRun(t, ExitOK, "run", "-q", "100", "-z", "3s", "-c", "1", "--out", out, srv.URL)
	run, _ := readRun(t, runDir(t, out))
	res := run.Results[0]
	if res.LatencyUncorrected == nil || res.LateSends == nil {
		t.Fatalf("open-loop fields missing: uncorrected %v, late sends %v", res.LatencyUncorrected, res.LateSends)
	}
	corr, unc := res.Latency, *res.LatencyUncorrected
	t.Logf("p99 corrected %.1f ms, uncorrected %.1f ms; max %.1f / %.1f ms; %d late sends of %d",
		corr.P99, unc.P99, corr.Max, unc.Max, *res.LateSends, res.Requests)
	if corr.P99 < 800 {
		t.Errorf("corrected p99 %.1f ms: the 1 s stall does not show", corr.P99)
	}
	if unc.P99 > 200 || unc.P99 > corr.P99/4 {
		t.Errorf("uncorrected p99 %.1f ms against corrected %.1f ms: want it much lower", unc.P99, corr.P99)
	}
	if unc.Max < 900 || corr.Max < 900 {
		t.Errorf("max corrected %.1f, uncorrected %.1f ms: the stalled request itself took 1 s", corr.Max, unc.Max)
	}
	if *res.LateSends < 50 {
		t.Errorf("%d late sends; about 100 requests were due during the stall", *res.LateSends)
	}
}

// TestRunErrorClasses checks that transport failures are results (exit 0)
// classified by class with a sample message, and that --insecure and
// --cacert make a server with an unknown CA work.
func TestRunErrorClasses(t *testing.T) {
	t.Parallel()
	tlsSrv := newTLS(t)
	ca := writeFile(t, t.TempDir(), "ca.pem", tlsSrv.caPEM)
	tests := []struct {
		name  string
		url   string
		args  []string
		class string // "" means: all 200
	}{
		{"closed port is refused", closedPort(t), nil, "refused"},
		{"server resets", resetting(t), nil, "reset"},
		{"server never answers", silent(t), []string{"-t", "200ms"}, "timeout"},
		{"unknown CA", tlsSrv.URL, nil, "tls"},
		{"unknown CA with --insecure", tlsSrv.URL, []string{"--insecure"}, ""},
		{"unknown CA with --cacert", tlsSrv.URL, []string{"--cacert", ca}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const n = 4
			out := t.TempDir()
			args := append([]string{"run", "-n", strconv.Itoa(n), "-c", "1", "--out", out}, tc.args...)
			r := mustRun(t, ExitOK, append(args, tc.url)...)
			run, _ := readRun(t, runDir(t, out))
			res := run.Results[0]
			if res.Requests != n {
				t.Errorf("%d requests recorded, want %d", res.Requests, n)
			}
			if tc.class == "" {
				if res.Status["200"] != n || len(res.Errors) != 0 {
					t.Errorf("status %v, errors %v (%v): want %d × 200", res.Status, res.Errors, res.ErrorSamples, n)
				}
				return
			}
			if res.Errors[tc.class] != n || len(res.Errors) != 1 || res.Successes != 0 {
				t.Errorf("errors %v (samples %v), want %d × %s only", res.Errors, res.ErrorSamples, n, tc.class)
			}
			if res.ErrorSamples[tc.class] == "" {
				t.Errorf("no sample message for class %s", tc.class)
			}
			if !strings.Contains(r.stdout, "Error distribution:") || !strings.Contains(r.stdout, "]\t"+tc.class) {
				t.Errorf("terminal output lacks the %s line in Error distribution:\n%s", tc.class, r.stdout)
			}
			if strings.Contains(r.stdout, "NaN") || res.SuccessRate != 0 {
				t.Errorf("every request failed: want success rate 0 and no NaN (rate %v)", res.SuccessRate)
			}
		})
	}
}
