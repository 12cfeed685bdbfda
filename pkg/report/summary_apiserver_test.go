package report

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func TestAPIServerSection(t *testing.T) {
	tests := []struct {
		name string
		rs   []results.Result
		want []string
	}{
		{"none counted", []results.Result{{Iteration: 1, Requests: 10}}, nil},
		{"audit with callers", []results.Result{{Iteration: 1, Requests: 400, APIServer: &results.APIServerReviews{
			Source: "audit", TokenReviews: 802, SubjectAccessReviews: 802, TokenReviewsPerRequest: 2.005, SARsPerRequest: 2.005,
			TokenReviewMeanMs: 0.7, SARMeanMs: 0.6, ReviewMsPerRequest: 2.6,
			Callers: []results.CallerReviews{{Caller: "system:serviceaccount:authbench:ext", TokenReviews: 401, SubjectAccessReviews: 401, ReviewMsPerRequest: 1.4}}}}},
			[]string{"## API Server Reviews", "| 1 | 400 | 802 | 802 | 4.01 | 2.60 | TokenReview 0.700 ms, SAR 0.600 ms |",
				"audit log", "`system:serviceaccount:authbench:ext` 401 TokenReviews and 401 SARs (1.40 ms per request)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &summaryWriter{run: &results.Run{}}
			s.apiserver(targetRun{name: "t", results: tt.rs})
			got := s.b.String()
			if tt.want == nil && got != "" {
				t.Errorf("section = %q, want none", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("section lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
