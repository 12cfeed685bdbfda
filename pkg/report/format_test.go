package report

import (
	"math"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

func TestFmtLatency(t *testing.T) {
	tests := []struct {
		ms   float64
		want string
	}{
		{46.0, "46.0 ms"}, {45.55, "45.6 ms"}, {2993.9, "2.99 s"}, {999.6, "1.00 s"}, {0.85, "850 µs"},
		{0.9996, "1.00 ms"}, {123456, "123 s"}, {1, "1.00 ms"}, {0, "0 ms"}, {math.NaN(), "not measured"},
		{math.Inf(1), "not measured"}, {-1, "not measured"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := fmtLatency(tt.ms); got != tt.want {
				t.Errorf("fmtLatency(%v) = %q, want %q", tt.ms, got, tt.want)
			}
		})
	}
}

func TestFmtPercent(t *testing.T) {
	tests := []struct {
		part, total int64
		want        string
	}{
		{10000, 10000, "100%"}, {9987, 10000, "99.87%"}, {999999, 1000000, ">99.99%"}, {1, 1000000, "<0.01%"},
		{0, 10, "0%"}, {0, 0, "n/a"}, {1, 3, "33.33%"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := fmtPercent(tt.part, tt.total); got != tt.want {
				t.Errorf("fmtPercent(%d, %d) = %q, want %q", tt.part, tt.total, got, tt.want)
			}
		})
	}
}

func TestFmtCountAndSig(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtCount(0), "0"}, {fmtCount(999), "999"}, {fmtCount(1000), "1,000"}, {fmtCount(50000), "50,000"},
		{fmtCount(-1234567), "-1,234,567"}, {fmtSig(0.0313, 3), "0.0313"}, {fmtSig(0.7, 3), "0.700"},
		{fmtSig(12.34, 3), "12.3"}, {fmtSig(100, 3), "100"}, {fmtSig(127000, 3), "127000"}, {fmtSig(0.00012, 3), "0.000120"},
		{fmtRPS(1044.25), "1044.2 req/s"}, {fmtMB(46.5e6), "46.5 MB"}, {fmtSecs(4.9), "0.0049 secs"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestStatusIcon(t *testing.T) {
	tests := []struct {
		name          string
		requests, ok  int64
		transportErrs int64
		want          string
	}{
		{"all good", 10000, 10000, 0, "✅"},
		{"99.9% exactly", 10000, 9990, 0, "✅"},
		{"just below 99.9%", 10000, 9989, 0, "⚠️"},
		{"one transport error", 10000, 9999, 1, "⚠️"},
		{"90% exactly", 1000, 900, 0, "⚠️"},
		{"below 90%", 1000, 899, 0, "❌"},
		{"nothing completed", 0, 0, 0, "❌"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := results.Result{Requests: tt.requests, Successes: tt.ok, Model: plan.Closed}
			if tt.transportErrs > 0 {
				r.Errors = map[string]int64{"refused": tt.transportErrs}
			}
			if got := statusIcon(r); got != tt.want {
				t.Errorf("statusIcon = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestStability(t *testing.T) {
	tests := []struct {
		name   string
		xs     []float64
		want   string
		wantOK bool
	}{
		{"stable", []float64{55.3, 55.0, 55.4, 55.9, 55.3}, "stable", true},
		{"moderate", []float64{100, 110, 92}, "moderate variation", true},
		{"unstable", []float64{100, 200, 50}, "unstable", true},
		{"one value", []float64{5}, "", false},
		{"zero mean", []float64{0, 0}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, ok := describe(tt.xs).CV()
			if ok != tt.wantOK {
				t.Fatalf("cv ok = %v, want %v", ok, tt.wantOK)
			}
			if ok && stabilityWord(cv) != tt.want {
				t.Errorf("stabilityWord(%.4f) = %q, want %q", cv, stabilityWord(cv), tt.want)
			}
			if math.IsNaN(cv) {
				t.Error("cv is NaN")
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"query token", redactURL("https://h/p?a=1&access_token=abc123456&b=2"), "https://h/p?a=1&access_token=REDACTED&b=2"},
		{"password", redactURL("https://u:hunter22@h/p"), "https://u:REDACTED@h/p"},
		{"plain", redactURL("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1"},
		{"api key header", redactHeader(plan.Header{Name: "X-Api-Key", Value: "abcdef123456"}), "<redacted, 12 chars>"},
		{"ordinary header", redactHeader(plan.Header{Name: "Accept", Value: "text/plain"}), "text/plain"},
		{"args", strings.Join(redactArgs([]string{"authbench", "run", "--token", "abc123456", "--client-secret=s3cr3t!!", "-H", "Authorization: Bearer abc123456", "-H", "Accept: */*", "-c", "50"}), " "),
			"authbench run --token <redacted, 9 chars> --client-secret=<redacted, 8 chars> -H Authorization: Bearer <redacted, 9 chars> -H Accept: */* -c 50"},
		{"jwt anywhere", scrub("got eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl here", nil), "got <redacted, 49 chars> here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
