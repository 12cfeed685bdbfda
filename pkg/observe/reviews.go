package observe

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// The resources the API server serves for delegated authentication and
// authorization: what an auth proxy creates per request it cannot answer
// from its cache.
const (
	ResourceTokenReviews = "tokenreviews"
	ResourceSARs         = "subjectaccessreviews"
)

// Sources of review counts (results.APIServerReviews.Source).
const (
	ReviewSourceMetrics = "metrics"
	ReviewSourceAudit   = "audit"
)

// ReviewKey names one series of reviews: who asked (empty when the source
// cannot tell callers apart) and which resource.
type ReviewKey struct {
	Caller   string
	Resource string
}

// ReviewCount is a cumulative count of reviews and of the seconds the API
// server spent serving them.
type ReviewCount struct {
	N       float64
	Seconds float64
}

// ReviewTally is one reading of the cumulative counts. Only differences
// between two readings of the same counter mean anything.
type ReviewTally struct {
	Time time.Time
	By   map[ReviewKey]ReviewCount
}

// ReviewCounter reads the API server's cumulative review counts. Read it
// just before and just after a window (an iteration) and pass both to
// ReviewWindow: the counts are exact at the moment of reading, so no
// sampling clock is involved.
type ReviewCounter interface {
	// Source is ReviewSourceMetrics or ReviewSourceAudit.
	Source() string
	// Read returns the counts now.
	Read(ctx context.Context) (ReviewTally, error)
}

// ReviewWindow turns two readings into an iteration's review counts, per
// request of the iteration's requests. It returns nil when a reading is
// missing (a zero Time).
func ReviewWindow(source string, before, after ReviewTally, requests int64) *results.APIServerReviews {
	if before.Time.IsZero() || after.Time.IsZero() {
		return nil
	}
	out := &results.APIServerReviews{Source: source}
	per := func(v float64) float64 {
		if requests <= 0 {
			return 0
		}
		return v / float64(requests)
	}
	callers := map[string]*results.CallerReviews{}
	var tr, sar ReviewCount
	for k, a := range after.By {
		d := delta(a, before.By[k])
		switch k.Resource {
		case ResourceTokenReviews:
			tr.N, tr.Seconds = tr.N+d.N, tr.Seconds+d.Seconds
		case ResourceSARs:
			sar.N, sar.Seconds = sar.N+d.N, sar.Seconds+d.Seconds
		default:
			continue
		}
		if k.Caller == "" || d.N == 0 {
			continue
		}
		c := callers[k.Caller]
		if c == nil {
			c = &results.CallerReviews{Caller: k.Caller}
			callers[k.Caller] = c
		}
		if k.Resource == ResourceTokenReviews {
			c.TokenReviews += int64(math.Round(d.N))
		} else {
			c.SubjectAccessReviews += int64(math.Round(d.N))
		}
		c.ReviewMsPerRequest += per(d.Seconds * 1000)
	}
	out.TokenReviews, out.SubjectAccessReviews = int64(math.Round(tr.N)), int64(math.Round(sar.N))
	out.TokenReviewsPerRequest, out.SARsPerRequest = per(tr.N), per(sar.N)
	out.TokenReviewMeanMs, out.SARMeanMs = mean(tr), mean(sar)
	out.ReviewMsPerRequest = per((tr.Seconds + sar.Seconds) * 1000)
	if w := after.Time.Sub(before.Time).Seconds(); w > 0 {
		out.WindowS = w
		out.ReviewsPerS = (tr.N + sar.N) / w
		for _, c := range callers {
			c.ReviewsPerS = float64(c.TokenReviews+c.SubjectAccessReviews) / w
		}
	}
	for _, c := range callers {
		out.Callers = append(out.Callers, *c)
	}
	sort.Slice(out.Callers, func(i, j int) bool { return out.Callers[i].Caller < out.Callers[j].Caller })
	return out
}

// delta is a counter's increase; a counter that went down was reset (the
// API server restarted), and then its value is the increase since.
func delta(after, before ReviewCount) ReviewCount {
	if after.N < before.N {
		return after
	}
	return ReviewCount{N: after.N - before.N, Seconds: math.Max(0, after.Seconds-before.Seconds)}
}

func mean(c ReviewCount) float64 {
	if c.N <= 0 {
		return 0
	}
	return c.Seconds * 1000 / c.N
}
