package importer

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func td(name string) string { return filepath.Join("testdata", name) }

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestHeySamples(t *testing.T) {
	tests := []struct {
		file                     string
		requests, successes      int64
		rps, total               float64
		p50, p95, p99, mean, max float64 // ms; 0: not measured
		status                   map[string]int64
		errors                   map[string]int64
	}{
		{"hey-200.txt", 300, 300, 225.4586, 1.3306, 9.4, 27.2, 1030.4, 25.7, 1052.9, map[string]int64{"200": 300}, map[string]int64{}},
		{"hey-404.txt", 40, 0, 0, 0, 0, 0, 0, 0, 0, map[string]int64{"404": 40}, map[string]int64{}},
		{"hey-refused.txt", 50, 0, 1186.8854, 0.0421, 0, 0, 0, 0, 0, map[string]int64{}, map[string]int64{"refused": 50}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			run, err := Hey([]string{td(tt.file)}, "echo")
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Results) != 1 {
				t.Fatalf("results = %d, want 1", len(run.Results))
			}
			r := run.Results[0]
			if r.Requests != tt.requests || r.Successes != tt.successes {
				t.Errorf("requests/successes = %d/%d, want %d/%d", r.Requests, r.Successes, tt.requests, tt.successes)
			}
			if tt.rps != 0 && (!approx(r.ThroughputRPS, tt.rps) || !approx(r.DurationS, tt.total)) {
				t.Errorf("rps %g total %g, want %g %g", r.ThroughputRPS, r.DurationS, tt.rps, tt.total)
			}
			if tt.p50 != 0 {
				l := r.Latency
				if !approx(l.P50, tt.p50) || !approx(l.P95, tt.p95) || !approx(l.P99, tt.p99) || !approx(l.Mean, tt.mean) || !approx(l.Max, tt.max) {
					t.Errorf("latency = %+v", l)
				}
			}
			if !mapsEqual(r.Status, tt.status) || !mapsEqual(r.Errors, tt.errors) {
				t.Errorf("status %v errors %v, want %v %v", r.Status, r.Errors, tt.status, tt.errors)
			}
			if !slices.Contains(r.Unavailable, "p999") || !slices.Contains(r.Unavailable, "stddev") {
				t.Errorf("unavailable = %v, want p999 and stddev", r.Unavailable)
			}
		})
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestHeyRefusedHasNoLatency(t *testing.T) {
	run, err := Hey([]string{td("hey-refused.txt")}, "down")
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	if r.Latency != (results.Latency{}) {
		t.Errorf("latency should be empty when nothing succeeded: %+v", r.Latency)
	}
	for _, k := range []string{"p50", "mean", "max", "phases"} {
		if !slices.Contains(r.Unavailable, k) {
			t.Errorf("%s not marked unavailable: %v", k, r.Unavailable)
		}
	}
	if !strings.Contains(r.ErrorSamples["refused"], "connection refused") {
		t.Errorf("error sample = %q", r.ErrorSamples["refused"])
	}
}

func TestHeyConcatenatedLog(t *testing.T) {
	run, err := Hey([]string{td("hey-report-3x.log"), td("hey-200.txt")}, "3.x")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 3 || run.Plan.Load.Iterations != 3 {
		t.Fatalf("iterations = %d, want 3 (2 in the log + 1)", len(run.Results))
	}
	for i, r := range run.Results {
		if r.Iteration != i+1 || r.Target != "3.x" || r.Model != "closed" {
			t.Errorf("result %d = %s #%d %s", i, r.Target, r.Iteration, r.Model)
		}
	}
	it2 := run.Results[1]
	if it2.Requests != 10000 || it2.Successes != 9885 || it2.Status["403"] != 2 || it2.Errors["timeout"] != 113 {
		t.Errorf("iteration 2 = %d req, %d ok, status %v, errors %v", it2.Requests, it2.Successes, it2.Status, it2.Errors)
	}
	if !approx(it2.Latency.P99, 12550) || !approx(it2.Latency.Max, 17760) {
		t.Errorf("iteration 2 P99/max = %g/%g", it2.Latency.P99, it2.Latency.Max)
	}
	w := it2.Phases.Wait
	if !approx(w.Mean, 1687) || !approx(w.Min, 293) || !approx(w.Max, 17750) {
		t.Errorf("resp wait phase = %+v", w)
	}
	if c := it2.Phases.Connect; !approx(c.Mean, 2.5) || c.Max != 0 {
		t.Errorf("DNS+dialup = %+v: hey's range there is the overall one and must not be kept", c)
	}
	if run.Imported == nil || run.Imported.Tool != "hey" || len(run.Imported.Files) != 2 {
		t.Errorf("imported = %+v", run.Imported)
	}
	if run.Plan.Load.Concurrency != 0 || !run.Start.IsZero() {
		t.Error("hey prints neither concurrency nor start time: they must stay unknown")
	}
	if run.Plan.Load.Requests != 0 {
		t.Errorf("requests per iteration differ (10,000 vs 300): plan requests = %d, want 0", run.Plan.Load.Requests)
	}
	again, _ := Hey([]string{td("hey-report-3x.log"), td("hey-200.txt")}, "3.x")
	if again.ID != run.ID || !strings.HasPrefix(run.ID, "import-hey-") {
		t.Errorf("IDs %q / %q: re-importing the same files must give the same ID", run.ID, again.ID)
	}
}

func TestWrkSamples(t *testing.T) {
	tests := []struct {
		file                string
		requests, successes int64
		rps, dur            float64
		p50, p99, mean, max float64
		non2xx              int64
	}{
		{"wrk-200.txt", 251, 251, 201.05, 1.25, 9.21, 355.72, 40.38, 367.06, 0},
		{"wrk-404.txt", 321, 0, 227.65, 1.41, 13.35, 307.17, 42.55, 324.80, 321},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			run, err := Wrk([]string{td(tt.file)}, "echo")
			if err != nil {
				t.Fatal(err)
			}
			r := run.Results[0]
			if r.Requests != tt.requests || r.Successes != tt.successes || r.Status[WrkNon2xx] != tt.non2xx {
				t.Errorf("requests %d successes %d status %v", r.Requests, r.Successes, r.Status)
			}
			if !approx(r.ThroughputRPS, tt.rps) || !approx(r.DurationS, tt.dur) {
				t.Errorf("rps %g dur %g", r.ThroughputRPS, r.DurationS)
			}
			l := r.Latency
			if !approx(l.P50, tt.p50) || !approx(l.P99, tt.p99) || !approx(l.Mean, tt.mean) || !approx(l.Max, tt.max) || l.P95 != 0 || l.Min != 0 {
				t.Errorf("latency = %+v", l)
			}
			for _, k := range []string{"p95", "min", "phases", "status"} {
				if !slices.Contains(r.Unavailable, k) {
					t.Errorf("%s not marked unavailable", k)
				}
			}
			if run.Plan.Load.Concurrency == 0 || !strings.HasPrefix(run.Plan.Targets[0].URL, "http://127.0.0.1:") {
				t.Errorf("wrk prints URL and connections: plan = %+v", run.Plan)
			}
		})
	}
}

func TestWrkSocketErrorsAndUnits(t *testing.T) {
	out := `Running 10s test @ http://127.0.0.1:8080/
  2 threads and 100 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.02s   250.00ms   2.00s    70.00%
    Req/Sec    45.00     10.00    80.00     60.00%
  Latency Distribution
     50%  980.00ms
     75%    1.10s
     90%    1.30s
     99%    1.90s
  900 requests in 10.01s, 100.00KB read
  Socket errors: connect 0, read 3, write 0, timeout 7
Requests/sec:     89.91
Transfer/sec:     10.00KB
`
	f := filepath.Join(t.TempDir(), "wrk.txt")
	if err := os.WriteFile(f, []byte(out+out), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := Wrk([]string{f}, "slow")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 2 || run.Plan.Load.Concurrency != 100 || run.Plan.Load.Duration.String() != "10s" {
		t.Fatalf("results %d plan %+v", len(run.Results), run.Plan.Load)
	}
	r := run.Results[0]
	if r.Requests != 910 || r.Successes != 900 || r.Errors["timeout"] != 7 || r.Errors["other"] != 3 {
		t.Errorf("requests %d successes %d errors %v", r.Requests, r.Successes, r.Errors)
	}
	if !approx(r.Latency.Mean, 1020) || !approx(r.Latency.Stddev, 250) || !approx(r.Latency.P75, 1100) {
		t.Errorf("latency = %+v", r.Latency)
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		imp  func([]string, string) (*results.Run, error)
		file string
		run  string
		want string
	}{
		{"no file", Hey, "", "x", "no file given"},
		{"no name", Hey, td("hey-200.txt"), "", "run name is required"},
		{"missing file", Hey, filepath.Join(dir, "nope.txt"), "x", "nope.txt"},
		{"not hey", Hey, write("empty.txt", "hello\n"), "x", "no hey output found"},
		{"bad number", Hey, write("bad.txt", "Summary:\n  Total:\tlots secs\n"), "x", "bad.txt:2: summary: Total: bad number"},
		{"bad percentile", Hey, write("badp.txt", "Summary:\n  Total:\t1 secs\nLatency distribution:\n  fifty in a while\n"), "x", "badp.txt:4: latency distribution"},
		{"truncated", Hey, write("cut.txt", "\nSummary:\n  Total:\t1.3306 secs\n  Requests/sec:\t225.4586\n"), "x", "cut.txt:2: Summary: the output counts no request"},
		{"negative rate", Hey, write("neg.txt", strings.Replace(heyText(t), "225.4586", "-225.4586", 1)), "x", "neg.txt:7: summary: Requests/sec: want a finite number, not negative, got -225.4586"},
		{"infinite rate", Hey, write("inf.txt", strings.Replace(heyText(t), "225.4586", "+Inf", 1)), "x", "inf.txt:7: summary: Requests/sec"},
		{"negative total", Hey, write("negt.txt", strings.Replace(heyText(t), "1.3306", "-1.3306", 1)), "x", "negt.txt:3: summary: Total"},
		{"wrk negative rate", Wrk, write("wrkneg.txt", strings.Replace(wrkText(t), "201.05", "-201.05", 1)), "x", "wrkneg.txt:12: "},
		{"wrk refused", Wrk, write("wrk.txt", "Running 1s test @ http://127.0.0.1:1/\n  1 threads and 2 connections\nunable to connect to 127.0.0.1:1 Connection refused\n"), "x", "did wrk fail to connect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []string
			if tt.file != "" {
				files = []string{tt.file}
			}
			_, err := tt.imp(files, tt.run)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestErrorClass(t *testing.T) {
	tests := map[string]string{
		`Get "http://x/": dial tcp 127.0.0.1:1: connect: connection refused`:                           "refused",
		`Get "https://x/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`: "timeout",
		`Get "https://x/": read tcp 1.2.3.4:5->6.7.8.9:443: read: connection reset by peer`:            "reset",
		`Get "https://x/": tls: failed to verify certificate: x509: certificate signed by unknown`:     "tls",
		`Get "http://nohost/": dial tcp: lookup nohost on 127.0.0.53:53: no such host`:                 "dns",
		`something else`: "other",
	}
	for msg, want := range tests {
		if got := ErrorClass(msg); got != want {
			t.Errorf("ErrorClass(%q) = %s, want %s", msg, got, want)
		}
	}
}

func heyText(t *testing.T) string { return readTestdata(t, "hey-200.txt") }
func wrkText(t *testing.T) string { return readTestdata(t, "wrk-200.txt") }

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(td(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
