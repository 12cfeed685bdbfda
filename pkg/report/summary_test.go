package report

import (
	"bytes"
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

func renderSummary(t *testing.T, run *results.Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := Summary(&b, run, analyze.Summarize(run)); err != nil {
		t.Fatalf("Summary: %v", err)
	}
	return b.String()
}

// badNumbers are what broken arithmetic or a bad format verb print.
var badNumbers = regexp.MustCompile(`NaN|Inf|%!|<nil>|e\+0|e-0`)

func TestSummaryGolden(t *testing.T) {
	for _, f := range fxRuns() {
		t.Run(f.name, func(t *testing.T) {
			out := renderSummary(t, f.run())
			if m := badNumbers.FindString(out); m != "" {
				t.Errorf("summary contains %q", m)
			}
			testenv.Golden(t, "testdata/summary/"+f.name+".md", []byte(out))
		})
	}
}

func TestNoSecretInOutput(t *testing.T) {
	renderers := map[string]func(*results.Run) (string, error){
		"summary": func(r *results.Run) (string, error) {
			var b strings.Builder
			err := Summary(&b, r, analyze.Summarize(r))
			return b.String(), err
		},
		"text": func(r *results.Run) (string, error) {
			var b strings.Builder
			err := WriteText(&b, r, TextOptions{RunDir: "runs/x"})
			return b.String(), err
		},
	}
	for _, f := range fxRuns() {
		for name, render := range renderers {
			t.Run(f.name+"/"+name, func(t *testing.T) {
				out, err := render(f.run())
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range plantedSecrets {
					if strings.Contains(out, s) {
						t.Errorf("output contains secret %q", s)
					}
				}
			})
		}
	}
}

func TestSummaryShowsRedactedHeaders(t *testing.T) {
	out := renderSummary(t, fxClosedRun())
	for _, want := range []string{
		"`Authorization: Bearer <redacted, 36 chars>`",
		"`X-Api-Key: <redacted, 31 chars>`",
		"`Accept: application/json`",
		"access_token=REDACTED",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

// headings lists a document's headings in order.
func headings(md string) []string {
	var out []string
	inCode := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func TestSummaryStructure(t *testing.T) {
	tests := []struct {
		name string
		run  *results.Run
		want []string // in order, not necessarily adjacent
	}{
		{"single target follows the migration reports", fxClosedRun(), []string{
			"# oauth-2x Benchmark Summary", "## Test Configuration", "## Architecture Tested", "## Latency Results",
			"### Performance Summary", "### Key Metrics", "### Performance Stability", "## Errors", "## SLO Results",
			"## Resource Utilization", "### oauth-proxy (auth-proxy)", "## Findings", "## Lab Components",
			"## Files Generated", "## Environment", "### Target Fingerprints",
		}},
		{"one section set per target", fxPartialRun(), []string{
			"## Test Configuration", "## Target: echo-2x", "### Target Configuration", "### Architecture Tested",
			"### Latency Results", "#### Key Metrics", "### Findings", "## Target: gateway-3x", "### Architecture Tested",
			"### Latency Results", "#### Performance Stability", "### SLO Results", "## Findings", "## Environment",
		}},
		{"open loop adds the schedule", fxOpenRun(), []string{"### Performance Summary", "### Open-Loop Schedule", "### Key Metrics"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := headings(renderSummary(t, tt.run))
			i := 0
			for _, h := range got {
				if i < len(tt.want) && h == tt.want[i] {
					i++
				}
			}
			if i < len(tt.want) {
				t.Errorf("heading %q missing or out of order; got:\n%s", tt.want[i], strings.Join(got, "\n"))
			}
		})
	}
}

func TestSummaryContent(t *testing.T) {
	tests := []struct {
		name    string
		run     *results.Run
		want    []string
		notWant []string
	}{
		{"closed", fxClosedRun(), []string{
			"**Date:** November 18, 2025 14:03:05 UTC",
			"| 1 | 45.5 ms | 55.3 ms | 64.4 ms | 1044.2 req/s | 100% (10000/10000) | ✅ |",
			"| 2 | 46.0 ms | 58.1 ms | 71.9 ms | 1021.7 req/s | 99.85% (9985/10000) | ⚠️ |",
			"| 3 | 46.6 ms | 55.9 ms | 65.4 ms | 1018.0 req/s | 99.99% (9999/10000) | ⚠️ |",
			"- **Mean of per-iteration P95:** 56.4 ms",
			"- **Overall Success Rate:** 99.95% (29,984/30,000 requests)",
			"- **Total Requests:** 30,000 (3 × 10,000)",
			"- **Authentication:** static",
			"route (lab: haproxy 2.6.12)\n    ↓\noauth-proxy (lab: auth-proxy, v7.8.1)",
			"| HTTP 4xx | 403 Forbidden | 12 | 0.04% | 2 |",
			"| transport | timeout | 3 | 0.01% | 2 | `Get",
			"- **Status Codes:** `200` × 29,984, `403` × 12",
			"| CPU | 0.00012 cores | 0.0085–0.0305 cores | 0.0499 cores | peak is 99.80% of the 0.05 cores limit |",
			"| Memory | 37.8 MB | 45.4–46.4 MB | 46.5 MB |",
			"- **CPU Throttled:** no (no CPU limit)",
			"- **Command:** `authbench run -f oauth-2x.yaml --token <redacted, 33 chars>`",
			"| Success rate | ≥ 99.99% | 99.95% | ❌ fail |",
			"2 of 3 objectives met.",
			"### 1. ❌ cpu-throttling (critical) — oauth-proxy",
			"`3f2a9c1b7d4e…`",
		}, []string{"Partial run", "Imported"}},
		{"closed, client far away", fxFarClientRun(), []string{
			"- **Network Round Trip:** ~40.6 ms of the median 46.0 ms (88.26%), by the fastest TLS handshake (40.6 ms, " +
				"one round trip in TLS 1.3); the stack's own time ~5.40 ms",
			"latency here is mostly the network round trip the workers wait on",
		}, []string{"mostly the queue the workers build"}},
		{"closed, lab without distance", fxClosedRun(), []string{"mostly the queue the workers build"}, []string{"Network Round Trip"}},
		{"open", fxOpenRun(), []string{
			"- **Rate:** 500.0 req/s in total",
			"- **Duration per Iteration:** 10s",
			"open loop — requests are scheduled at 500.0 req/s",
			"| 2 | 500.0 req/s | 462.5 req/s (92.50% of target) | 1,875 (40.54%) | 2.31 s | 97.3 ms |",
			"- **Authentication:** env — bearer token from environment variable `API_TOKEN`",
			"gateway (lab: nginx 1.22.1)",
		}, []string{"Closed-Loop Check"}},
		{"failed: no NaN, no division by zero", fxFailedRun(), []string{
			"| 1 | n/a | n/a | n/a | 5000.0 req/s | 0% (0/200) | ❌ |",
			"| 2 | n/a | n/a | n/a | 0.0 req/s | n/a (0 requests) | ❌ |",
			"- **Mean of per-iteration P50:** not measured",
			"- **Overall Success Rate:** 0% (0/200 requests)",
			"| transport | refused | 200 | 100% | 1 |",
			"| P95 | n/a | n/a | n/a | n/a | not measured |",
			"error: dial tcp 127.0.0.1:1",
			"- **Authentication:** none — no token source; credentials sent in the `Authorization` header",
		}, nil},
		{"partial", fxPartialRun(), []string{
			"> ⚠️ **Partial run:** the run was interrupted; 4 of 6 planned",
			"- **Total Requests:** 4,123 completed of 30,000 planned",
			"oidc — bearer token from an OIDC password grant",
			"Stability needs ≥ 2 iterations; this target has 1.",
			"- **Request Body:** 512 bytes from `body.json`",
		}, nil},
		{"imported", fxImportedRun(), []string{
			"> ℹ️ **Imported from hey**: converted from `oauth-2x.log`.",
			"**Date:** not measured",
			"- **Tool:** hey (imported by authbench v0.3.0)",
			"Client (hey)",
			"- **Host:** not measured",
			"No errors: all 20,000 requests got an HTTP status below 400.",
		}, []string{"Mean of per-iteration"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := renderSummary(t, tt.run)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("summary lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("summary has %q", w)
				}
			}
		})
	}
}

// fxFarClientRun is the closed run with its stack behind a path whose
// round trip the TLS handshake carries, as through the lab's fault proxy.
func fxFarClientRun() *results.Run {
	run := fxClosedRun()
	for i := range run.Results {
		run.Results[i].Phases.TLS.Min = 40.6 + float64(i)
		run.Results[i].Latency.Min = 41.2 + float64(i)
	}
	return run
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name   string
		render func() error
		want   string
	}{
		{"summary nil run", func() error { return Summary(&bytes.Buffer{}, nil, nil) }, "no run"},
		{"summary write", func() error { return Summary(brokenWriter{}, fxClosedRun(), nil) }, "writing summary: disk full"},
		{"text nil run", func() error { return Text(&bytes.Buffer{}, nil) }, "no run"},
		{"text write", func() error { return Text(brokenWriter{}, fxClosedRun()) }, "writing text report: disk full"},
		{"result nil", func() error { return TextResult(&bytes.Buffer{}, nil) }, "no result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.render()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestNiceCeil(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{69, 100}, {100, 100}, {101, 200}, {1.4, 2}, {0.3, 0.5}, {4500, 5000}, {0, 0},
	} {
		if got := niceCeil(tc.in); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("niceCeil(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
}
