package analyze

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func scaledRun() *results.Run {
	const sa = "system:serviceaccount:authbench:"
	return &results.Run{
		Lab: &results.Lab{Components: []results.LabComponent{
			{Name: "ext"}, {Name: "ext-r2", ReplicaOf: "ext"}, {Name: "ext-r3", ReplicaOf: "ext"}, {Name: "sidecar"},
		}},
		Results: []results.Result{
			{Target: "t", Iteration: 1, Requests: 1500, APIServer: &results.APIServerReviews{WindowS: 2, Callers: []results.CallerReviews{
				{Caller: sa + "ext", TokenReviews: 100}, {Caller: sa + "ext-r2", TokenReviews: 98},
				{Caller: sa + "ext-r3", TokenReviews: 99}, {Caller: sa + "sidecar", TokenReviews: 100, SubjectAccessReviews: 100},
			}}},
			{Target: "t", Iteration: 2, Requests: 1500, APIServer: &results.APIServerReviews{WindowS: 2, Callers: []results.CallerReviews{
				{Caller: sa + "ext-r3", TokenReviews: 1},
			}}},
		},
	}
}

func TestScaledReviews(t *testing.T) {
	tests := []struct {
		name string
		run  *results.Run
		want int // sets
	}{
		{"scaled", scaledRun(), 1},
		{"no lab", &results.Run{}, 0},
		{"replicas started during the run", &results.Run{Lab: &results.Lab{Components: []results.LabComponent{{Name: "ext"}, {Name: "sidecar"}}}, Results: scaledRun().Results}, 1},
		{"not scaled", &results.Run{Lab: &results.Lab{Components: []results.LabComponent{{Name: "ext"}}}, Results: []results.Result{
			{Target: "t", Iteration: 1, APIServer: &results.APIServerReviews{Callers: []results.CallerReviews{{Caller: "sa:ext", TokenReviews: 3}, {Caller: "sa:other-r2", TokenReviews: 3}}}}}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ScaledReviews(tc.run)
			if len(got) != tc.want {
				t.Fatalf("ScaledReviews = %+v, want %d sets", got, tc.want)
			}
			if tc.want == 0 {
				return
			}
			s := got[0]
			if s.Component != "ext" || len(s.Replicas) != 3 || s.Replicas[0].Name != "ext" || s.Replicas[2].Name != "ext-r3" {
				t.Errorf("set = %+v", s)
			}
			if s.Total() != 298 || s.WindowS != 4 {
				t.Errorf("total %d over %g s, want 298 over 4 s", s.Total(), s.WindowS)
			}
		})
	}
}

func TestReplicaFindings(t *testing.T) {
	fs := ReplicaFindings(scaledRun())
	if len(fs) != 1 {
		t.Fatalf("findings = %+v", fs)
	}
	f := fs[0]
	if f.Kind != KindReplicaReviews || f.Component != "ext" || f.Values["replicas"] != 3 || f.Values["reviews_per_s"] != 298.0/4 {
		t.Errorf("finding = %+v", f)
	}
	for _, want := range []string{"3 replicas", "ext-r2 98", "298 reviews"} {
		if !strings.Contains(f.Evidence, want) {
			t.Errorf("evidence lacks %q: %s", want, f.Evidence)
		}
	}
}

func TestReplicaPoint(t *testing.T) {
	s := &results.CapacitySearch{Target: "t@2", Capacity: 400, Sustained: 398, Scale: &results.CapacityScale{Component: "ext", Replicas: 2},
		Steps: []results.CapacityStep{
			{N: 1, Pass: true, CapacityPoint: results.CapacityPoint{Offered: 200}},
			{N: 2, Pass: true, CapacityPoint: results.CapacityPoint{Offered: 400}},
			{N: 3, Pass: false, CapacityPoint: results.CapacityPoint{Offered: 800}},
		}}
	rs := []results.Result{
		{Target: "t@2", Iteration: 1, Requests: 2000, APIServer: &results.APIServerReviews{TokenReviews: 999, WindowS: 10}},
		{Target: "t@2", Iteration: 2, Requests: 4000, APIServer: &results.APIServerReviews{TokenReviews: 200, SubjectAccessReviews: 200, WindowS: 10}},
		{Target: "t@1", Iteration: 2, Requests: 4000, APIServer: &results.APIServerReviews{TokenReviews: 999, WindowS: 10}},
	}
	p := ReplicaPoint(s, rs)
	if p.Replicas != 2 || p.CapacityRPS != 400 || p.ReviewsPerS == nil || *p.ReviewsPerS != 40 || *p.ReviewsPerRequest != 0.1 {
		t.Errorf("point = %+v", p)
	}
	if q := ReplicaPoint(s, nil); q.ReviewsPerS != nil {
		t.Errorf("reviews without counts: %+v", q)
	}
}

func TestReplicaAdvice(t *testing.T) {
	cached := ReplicaSet{Requests: 1500, Replicas: []ReplicaReviews{{TokenReviews: 100}, {TokenReviews: 100}}}
	uncached := ReplicaSet{Requests: 1500, Replicas: []ReplicaReviews{{TokenReviews: 750}, {TokenReviews: 750}}}
	if a := replicaAdvice(cached); !strings.Contains(a, "once per replica") {
		t.Errorf("cached advice: %s", a)
	}
	if a := replicaAdvice(uncached); !strings.Contains(a, "follow the requests") {
		t.Errorf("uncached advice: %s", a)
	}
}
