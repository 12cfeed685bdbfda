package report

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// apiserver is the "API Server Reviews" section: what the auth path asked
// the Kubernetes API server per iteration (results.APIServerReviews), and
// who asked when the audit log tells. Nothing when no iteration was counted.
func (s *summaryWriter) apiserver(t targetRun) {
	var rs []results.Result
	for _, r := range t.results {
		if r.APIServer != nil {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return
	}
	s.heading(2, "API Server Reviews")
	s.printf("| %s | Requests | TokenReviews | SubjectAccessReviews | Reviews per Request | API Server ms per Request | Mean Review | Reviews per Second |\n", s.unit())
	s.printf("|-----------|----------|--------------|----------------------|---------------------|---------------------------|-------------|--------------------|\n")
	for _, r := range rs {
		a := r.APIServer
		s.printf("| %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Iteration, fmtCount(r.Requests),
			fmtCount(a.TokenReviews), fmtCount(a.SubjectAccessReviews),
			fmtSig(a.TokenReviewsPerRequest+a.SARsPerRequest, 3), fmtSig(a.ReviewMsPerRequest, 3), meanReview(a),
			perSecond(a.ReviewsPerS, a.WindowS))
	}
	last := rs[len(rs)-1].APIServer
	s.printf("\nCounted from the API server's %s. ", sourceText(last.Source))
	s.printf("A proxy whose cache answers makes a handful of reviews per run; reviews in proportion to requests mean every request waits for round trips to the API server.\n\n")
	if callers := callerLine(last); callers != "" {
		s.printf("Callers in %s %d: %s.\n\n", strings.ToLower(s.unit()), rs[len(rs)-1].Iteration, callers)
	}
	s.replicaReviews(rs)
}

// replicaReviews is the per-caller table when an auth component ran as
// several replicas (each its own identity): every iteration's reviews by
// caller, so that each replica's cache misses show apart.
func (s *summaryWriter) replicaReviews(rs []results.Result) {
	scaled := false
	for _, r := range rs {
		if len(r.APIServer.Callers) > 1 {
			scaled = scaled || hasReplicaCaller(r.APIServer.Callers)
		}
	}
	if !scaled {
		return
	}
	s.printf("Reviews per caller (each replica asks as its own identity, COMPONENT-rN):\n\n")
	s.printf("| %s | Caller | TokenReviews | SubjectAccessReviews | Reviews per Second |\n", s.unit())
	s.printf("|---|---|---|---|---|\n")
	for _, r := range rs {
		for _, c := range r.APIServer.Callers {
			s.printf("| %d | %s | %s | %s | %s |\n", r.Iteration, code(c.Caller), fmtCount(c.TokenReviews),
				fmtCount(c.SubjectAccessReviews), perSecond(c.ReviewsPerS, r.APIServer.WindowS))
		}
	}
	s.printf("\n")
}

// hasReplicaCaller reports a caller named as a replica beyond the first.
func hasReplicaCaller(cs []results.CallerReviews) bool {
	for _, c := range cs {
		name := c.Caller[strings.LastIndex(c.Caller, ":")+1:]
		if i := strings.LastIndex(name, "-r"); i > 0 && i+2 < len(name) && strings.Trim(name[i+2:], "0123456789") == "" {
			return true
		}
	}
	return false
}

// perSecond prints a rate, or a dash for a record without its window.
func perSecond(v, window float64) string {
	if window <= 0 {
		return "—"
	}
	return fmtSig(v, 3)
}

func sourceText(src string) string {
	if src == "audit" {
		return "audit log (which names each review's caller)"
	}
	return "/metrics (apiserver_request_total, apiserver_request_duration_seconds)"
}

func meanReview(a *results.APIServerReviews) string {
	var parts []string
	if a.TokenReviews > 0 {
		parts = append(parts, "TokenReview "+fmtSig(a.TokenReviewMeanMs, 3)+" ms")
	}
	if a.SubjectAccessReviews > 0 {
		parts = append(parts, "SAR "+fmtSig(a.SARMeanMs, 3)+" ms")
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

func callerLine(a *results.APIServerReviews) string {
	var parts []string
	for _, c := range a.Callers {
		rate := ""
		if c.ReviewsPerS > 0 {
			rate = ", " + fmtSig(c.ReviewsPerS, 3) + "/s"
		}
		parts = append(parts, fmt.Sprintf("%s %s TokenReviews and %s SARs (%s ms per request%s)", code(c.Caller),
			fmtCount(c.TokenReviews), fmtCount(c.SubjectAccessReviews), fmtSig(c.ReviewMsPerRequest, 3), rate))
	}
	return strings.Join(parts, "; ")
}
