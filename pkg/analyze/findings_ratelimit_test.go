package analyze

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

func rateLimitRun(qps float64, whatIf []string, tr int64, seconds, meanMs float64) *results.Run {
	std := &results.Standin{Plays: "kube-auth-proxy", CallsPerRequest: 1, APIQPS: qps, APIBurst: int(2 * qps),
		CapRPS: qps, Cache: "no cache", Flag: "--authz-api-qps", Identity: "kube-auth-proxy-oauth", WhatIf: whatIf}
	return &results.Run{
		Lab: &results.Lab{Components: []results.LabComponent{{Name: "kube-auth-proxy-oauth", Standin: std}, {Name: "http-echo"}}},
		Results: []results.Result{{Target: "lab-3x-oauth", Requests: tr, DurationS: seconds, Latency: results.Latency{Mean: meanMs},
			APIServer: &results.APIServerReviews{Source: "audit", TokenReviews: 2 * tr, SubjectAccessReviews: tr,
				Callers: []results.CallerReviews{
					{Caller: "system:serviceaccount:authbench:kube-auth-proxy-oauth", TokenReviews: tr},
					{Caller: "system:serviceaccount:authbench:kube-rbac-proxy-oauth", TokenReviews: tr, SubjectAccessReviews: tr},
				}}}},
	}
}

func TestClientRateLimitFindings(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  *results.Run
		want []string // substrings of the evidence and advice; nil: no finding
	}{
		{"held at 5 QPS", rateLimitRun(5, nil, 61, 10, 5820),
			[]string{"per request: 1 calls", "61 TokenReviews", "rate limit of 5 QPS, burst 10", "caps uncached requests at 5 req/s per replica", "--authz-api-qps=N"}},
		{"lifted: far below the raised QPS", rateLimitRun(1000, []string{"--authz-api-qps=1000"}, 2000, 10, 3), nil},
		{"at the limit but nobody waited", rateLimitRun(5, nil, 50, 10, 4), nil},
		{"what-if still held says so", rateLimitRun(20, []string{"--authz-api-qps=20"}, 220, 10, 900),
			[]string{"rate limit of 20 QPS, burst 40", "ran it with --authz-api-qps=20"}},
		{"no lab record", func() *results.Run { r := rateLimitRun(5, nil, 61, 10, 5820); r.Lab = nil; return r }(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := ClientRateLimitFindings(tc.run)
			if tc.want == nil {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Kind != KindClientRateLimit || fs[0].Component != "kube-auth-proxy-oauth" {
				t.Fatalf("want one %s finding on kube-auth-proxy-oauth, got %+v", KindClientRateLimit, fs)
			}
			text := fs[0].Evidence + " " + fs[0].Advice
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("finding lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
