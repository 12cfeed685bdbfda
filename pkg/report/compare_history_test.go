package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/pkg/store"
)

func fp(v float64) *float64 { return &v }

// cxHistory is the migration reports' "October vs November" 3.x gateway, plus a
// wrk import without P95 and the 2.x route.
func cxHistory() []store.HistoryRow {
	return []store.HistoryRow{
		{RunID: "oct", RunName: "3.x-oct", Start: cxOct15, Target: "gateway", Iterations: 5, Requests: 50000, SuccessRate: 0.99774,
			P50: fp(2640), P95: fp(2804), Throughput: 18.42, Model: "closed", Concurrency: 50},
		{RunID: "2x", RunName: "2.x", Start: cxOct23, Target: "route", Iterations: 5, Requests: 50000, SuccessRate: 1,
			P50: fp(50.4), P95: fp(66.8), Throughput: 931, Model: "closed", Concurrency: 50},
		{RunID: "nov", RunName: "3.x-nov", Start: cxNov17, Target: "gateway", Iterations: 5, Requests: 50000, SuccessRate: 0.9996,
			P50: fp(1616), P95: fp(3138), Throughput: 29.05, Model: "closed", Concurrency: 50},
		{RunID: "nov18", RunName: "3.x-fixed", Start: cxNov17.Add(24 * time.Hour), Target: "gateway", Iterations: 1, Requests: 50000, SuccessRate: 1,
			P50: fp(70), P95: nil, Throughput: 668, Imported: true, Tool: "wrk"},
	}
}

func TestHistoryTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := HistoryText(&b, cxHistory()); err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, "testdata/compare/history.txt", b.Bytes())
}

func TestHistoryTextContent(t *testing.T) {
	var b bytes.Buffer
	if err := HistoryText(&b, cxHistory()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"History of gateway (3 runs)",
		"History of route (1 runs)",
		"wrk (imported)",
		"  P50         █▅▁  2.64 s → 70.0 ms (0.0265x)",
		"  Throughput  ▁▁█  18.4 req/s → 668 req/s (36.3x)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// The P95 the wrk import lacks is shown as missing, not as zero.
	if !strings.Contains(out, "  P95         ▁█   2.80 s → 3.14 s (1.12x)") {
		t.Errorf("P95 trend should skip the unmeasured value:\n%s", out)
	}
	if regexp.MustCompile(`[^.0-9]0 ms`).MatchString(out) {
		t.Errorf("an unmeasured latency printed as zero:\n%s", out)
	}
}

func TestHistoryTextEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := HistoryText(&b, nil); err != nil || !strings.Contains(b.String(), "No runs indexed") {
		t.Errorf("empty history = %q, %v", b.String(), err)
	}
	if err := HistoryText(brokenWriter{}, cxHistory()); err == nil {
		t.Error("write error not returned")
	}
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		in   []*float64
		want string
	}{
		{[]*float64{fp(1), fp(2), fp(3)}, "▁▅█"},
		{[]*float64{fp(5), fp(5)}, "▅▅"},
		{[]*float64{fp(1), nil, fp(8)}, "▁ █"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := sparkline(tt.in); got != tt.want {
			t.Errorf("sparkline = %q, want %q", got, tt.want)
		}
	}
}
