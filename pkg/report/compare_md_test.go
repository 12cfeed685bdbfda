package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/importer"
	"github.com/authbench/authbench/pkg/results"
)

func renderCompare(t *testing.T, c *analyze.Comparison) string {
	t.Helper()
	var b bytes.Buffer
	if err := CompareMarkdown(&b, c); err != nil {
		t.Fatalf("CompareMarkdown: %v", err)
	}
	return b.String()
}

func cxCases() []struct {
	name string
	runs func() []*results.Run
	opts analyze.CompareOptions
} {
	return []struct {
		name string
		runs func() []*results.Run
		opts analyze.CompareOptions
	}{
		{"2x-vs-3x", func() []*results.Run { return []*results.Run{cxReported2x(), cxReported3x()} }, analyze.CompareOptions{}},
		{"oct-vs-nov", func() []*results.Run { return []*results.Run{cxReportedOct(), cxReported3x()} }, analyze.CompareOptions{}},
		{"three-way", func() []*results.Run { return []*results.Run{cxReported2x(), cxReported3x(), cxReportedOct()} }, analyze.CompareOptions{Baseline: "3.x"}},
	}
}

func TestCompareMarkdownGolden(t *testing.T) {
	for _, tc := range cxCases() {
		t.Run(tc.name, func(t *testing.T) {
			md := renderCompare(t, cxCompare(t, tc.runs(), tc.opts))
			testenv.Golden(t, "testdata/compare/"+tc.name+".md", []byte(md))
		})
	}
}

func TestCompareMarkdownLayout(t *testing.T) {
	md := renderCompare(t, cxCompare(t, []*results.Run{cxReported2x(), cxReported3x()}, analyze.CompareOptions{}))
	// The migration reports' section order.
	order := []string{
		"# Performance Comparison: 2.x vs 3.x",
		"> ⚠️ **These runs are not directly comparable.**",
		"## Executive Summary",
		"| Version | Architecture | P95 Latency | P50 Latency | Throughput | Success Rate |",
		"**Key Findings:**",
		"## Test Configuration",
		"### Test Environments",
		"### Configuration Differences",
		"## Detailed Performance Comparison",
		"### Latency Metrics",
		"| Metric | 2.x | 3.x | Difference |",
		"**Visualization:**",
		"### Significance",
		"### Throughput Comparison",
		"### Latency Distribution Comparison",
		"#### P50 (Median) - Typical User Experience",
		"| Iteration | 2.x | 3.x | Difference |",
		"#### P95 - SLA/Performance Target",
		"### Success Rate & Reliability",
		"**Error Analysis:**",
		"### Resource Utilization Comparison",
		"## Test Data Sources",
	}
	at := 0
	for _, s := range order {
		i := strings.Index(md[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order after byte %d", s, at)
		}
		at += i + len(s)
	}
	for _, want := range []string{
		"| **P50 (median)** | 50.4 ms | 1.62 s | +1.57 s (**32.1x slower**) |",
		"| 1 | 51.0 ms | 1.60 s | +1.55 s (31.3x) |",
		"| **Average** | **50.4 ms** | **1.62 s** | **32.1x slower** |",
		"| **3.x** | 50,000 | 49,980 | 20 | **99.96%** | 20 × 403 Forbidden |",
		"**2.x:** No errors across all 50,000 requests.",
		"- By iteration: iteration 1: 2, iteration 2: 2, iteration 3: 6, iteration 4: 8, iteration 5: 2",
		"queueing time",
		"#### auth-proxy: oauth-proxy vs kube-auth-proxy",
		"Targets are in different domains",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q", want)
		}
	}
	if bad := badNumbers.FindString(md); bad != "" {
		t.Errorf("unprintable number %q in output", bad)
	}
}

// TestCompareMarkdownBars checks the text charts: proper UTF-8 blocks (the
// migration reports' were mojibake), the longest bar at full width, the ratio
// shown.
func TestCompareMarkdownBars(t *testing.T) {
	md := renderCompare(t, cxCompare(t, []*results.Run{cxReported2x(), cxReported3x()}, analyze.CompareOptions{}))
	if !utf8.ValidString(md) || strings.Contains(md, "â–") {
		t.Fatal("output is not clean UTF-8")
	}
	chart := regexp.MustCompile("P95 Latency Comparison:\n2.x: (█+) 66.8 ms\n3.x: (█+) 3.14 s \\(47.0x\\)\n")
	m := chart.FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("P95 chart not found in:\n%s", md)
	}
	if n := utf8.RuneCountInString(m[1]); n != 1 {
		t.Errorf("2.x bar = %d blocks, want 1", n)
	}
	if n := utf8.RuneCountInString(m[2]); n != barWidth {
		t.Errorf("3.x bar = %d blocks, want %d", n, barWidth)
	}
}

func TestCompareMarkdownWarnsAtTop(t *testing.T) {
	md := renderCompare(t, cxCompare(t, []*results.Run{cxReportedOct(), cxReported3x()}, analyze.CompareOptions{}))
	warn := strings.Index(md, "Different backend")
	summary := strings.Index(md, "## Executive Summary")
	if warn < 0 || warn > summary {
		t.Fatalf("backend warning at %d, summary at %d: the warning must come first", warn, summary)
	}
	if !strings.Contains(md, "| **Backend body SHA-256** | 38ffd4972ae5 | 5891b5b522d5 | **Key change** |") {
		t.Error("body hash difference not in the configuration table")
	}
	if !strings.Contains(md, "113 × timeout (transport): `context deadline exceeded") {
		t.Error("timeouts not analysed")
	}
}

func TestCompareMarkdownWithinNoise(t *testing.T) {
	a, b := cxReported2x(), cxReported2x()
	b.Name = "2.x-rerun"
	for i := range b.Results {
		j := (i + 1) % len(a.Results)
		b.Results[i].Latency = a.Results[j].Latency
		b.Results[i].Latency.P50 += 0.2
		b.Results[i].ThroughputRPS = a.Results[j].ThroughputRPS
	}
	md := renderCompare(t, cxCompare(t, []*results.Run{a, b}, analyze.CompareOptions{}))
	if !strings.Contains(md, "| **P50 (median)** | 50.4 ms | 50.6 ms | within noise (+200 µs) |") {
		t.Errorf("within-noise P50 not marked:\n%s", md)
	}
	if i := strings.Index(md, "1.00x slower"); i >= 0 {
		t.Errorf("a difference within noise is printed as a slowdown: %q", md[max(0, i-200):i+20])
	}
	if strings.Contains(md, "not directly comparable") {
		t.Error("a rerun of the same configuration should raise no warning")
	}
}

func TestCompareMarkdownNoSecrets(t *testing.T) {
	a, b := cxReported2x(), cxReported3x()
	a.Plan.Targets[0].URL += "?access_token=" + secretQuery
	a.Environment.Targets[0].URL = a.Plan.Targets[0].URL
	b.Plan.Targets[0].Headers = fxSecretHeaders()
	b.Results[0].ErrorSamples = map[string]string{"other": "got Bearer " + secretBearer}
	b.Results[0].Errors = map[string]int64{"other": 1}
	md := renderCompare(t, cxCompare(t, []*results.Run{a, b}, analyze.CompareOptions{}))
	for _, s := range []string{secretQuery, secretBearer} {
		if strings.Contains(md, s) {
			t.Errorf("secret %q leaked into the comparison", s)
		}
	}
}

func TestCompareMarkdownErrors(t *testing.T) {
	if err := CompareMarkdown(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil comparison: want an error")
	}
	c := cxCompare(t, []*results.Run{cxReported2x(), cxReported3x()}, analyze.CompareOptions{})
	if err := CompareMarkdown(brokenWriter{}, c); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error = %v", err)
	}
}

// TestCompareMarkdownImported compares a hey import with a wrk import: what
// a tool did not measure reads "not measured", never a zero or NaN.
func TestCompareMarkdownImported(t *testing.T) {
	hey, err := importer.Hey([]string{"../importer/testdata/hey-report-3x.log"}, "hey-3.x")
	if err != nil {
		t.Fatal(err)
	}
	wrk, err := importer.Wrk([]string{"../importer/testdata/wrk-200.txt"}, "wrk-local")
	if err != nil {
		t.Fatal(err)
	}
	md := renderCompare(t, cxCompare(t, []*results.Run{hey, wrk}, analyze.CompareOptions{}))
	testenv.Golden(t, "testdata/compare/imported.md", []byte(md))
	for _, want := range []string{
		"| **P95** | 3.16 s | not measured | not measured |",
		"hey-3.x was imported from hey output",
		"| **hey-3.x** | 20,000 | 19,883 | 117 | **99.41%** | 113 × timeout, 4 × 403 Forbidden |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q", want)
		}
	}
	if bad := badNumbers.FindString(md); bad != "" {
		t.Errorf("unprintable number %q", bad)
	}
}
