package report

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

func TestReplicaReviewsTable(t *testing.T) {
	const sa = "system:serviceaccount:authbench:"
	tests := []struct {
		name    string
		callers []string
		want    bool
	}{
		{"replicas", []string{sa + "ext", sa + "ext-r2"}, true},
		{"one of each", []string{sa + "ext", sa + "sidecar"}, false},
		{"a name ending in -r", []string{sa + "ext", sa + "proxy-r"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &results.APIServerReviews{Source: "audit", TokenReviews: 200, WindowS: 2, ReviewsPerS: 100}
			for _, c := range tc.callers {
				a.Callers = append(a.Callers, results.CallerReviews{Caller: c, TokenReviews: 100, ReviewsPerS: 50})
			}
			s := &summaryWriter{run: &results.Run{}}
			s.apiserver(targetRun{name: "t", results: []results.Result{{Iteration: 1, Requests: 300, APIServer: a}}})
			got := s.b.String()
			if has := strings.Contains(got, "Reviews per caller"); has != tc.want {
				t.Errorf("per-caller table shown %v, want %v:\n%s", has, tc.want, got)
			}
			if !strings.Contains(got, "| 100 |\n") {
				t.Errorf("the iteration's reviews per second are missing:\n%s", got)
			}
			if tc.want && !strings.Contains(got, "| 1 | `"+sa+"ext-r2` | 100 | 0 | 50.0 |") {
				t.Errorf("the replica's row is missing:\n%s", got)
			}
		})
	}
}

func TestReplicaCurveSection(t *testing.T) {
	perS, perReq := 40.0, 0.1
	run := &results.Run{Plan: plan.Plan{SLO: &plan.SLO{P99: plan.Duration(1e8)}}, ReplicaCurve: &results.ReplicaCurve{
		Component: "ext", Limit: "200m", Points: []results.ReplicaPoint{
			{Target: "t@1", Replicas: 1, CapacityRPS: 200, SustainedRPS: 199},
			{Target: "t@2", Replicas: 2, CapacityRPS: 400, SustainedRPS: 398, ReviewsPerS: &perS, ReviewsPerRequest: &perReq},
		}}}
	s := &summaryWriter{run: run}
	s.replicaCurve()
	got := s.b.String()
	for _, want := range []string{"## Capacity by Replicas", "200m each", "| `t@2` | 2 |", "| 2.00× | 40.0 | 0.100 |", "| 1.00× | — | — |"} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
	s = &summaryWriter{run: &results.Run{}}
	if s.replicaCurve(); s.b.Len() != 0 {
		t.Errorf("a run without a curve got a section: %q", s.b.String())
	}
}
