package analyze_test

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
)

// TestComparisonInWords checks that analyze's comparisons of the migration
// reports carry what report's executive summary says: the ratios, noise
// (within, unknown), a metric one side did not measure, and saturation.
func TestComparisonInWords(t *testing.T) {
	tests := []struct {
		name  string
		runs  []*results.Run
		first string // the first sentence is, or contains, this
		exact bool
		also  string // another sentence contains this
	}{
		{"reported 2.x vs 3.x", []*results.Run{analyze.Reported2x(), analyze.Reported3x()},
			"3.x is 32.1x slower than 2.x at P50 and 47.0x at P95; throughput 0.0312x (29.1 vs 931 req/s); success rate lower (99.96% vs 100%).",
			true, "queueing time"},
		{"rerun within noise", analyze.RerunRuns(), "within noise (+500 µs) at P50", false, ""},
		{"one iteration", analyze.OneIterationRuns(), "noise unknown", false, ""},
		{"wrk without P95", analyze.WrkRuns(), "not measured at P95", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := analyze.Compare(tc.runs, analyze.CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := report.ExecutiveSummary(c)
			switch {
			case len(s) == 0:
				t.Fatal("no summary")
			case tc.exact && s[0] != tc.first, !tc.exact && !strings.Contains(s[0], tc.first):
				t.Errorf("summary =\n%q\nwant\n%q", s, tc.first)
			}
			if tc.also != "" && (len(s) < 2 || !strings.Contains(strings.Join(s[1:], " "), tc.also)) {
				t.Errorf("summary does not say %q: %q", tc.also, s)
			}
		})
	}
}
