package results

// APIServerReviews counts what the authentication path asked the
// Kubernetes API server during one iteration: TokenReviews (is this token
// valid, and whose is it) and SubjectAccessReviews (may this user do
// this). A proxy that caches asks a handful of times; one that does not asks
// once or twice per request, and every ask is a round trip on the request's
// path.
type APIServerReviews struct {
	// Source is where the counts come from: "metrics" (the API server's
	// /metrics, apiserver_request_total) or "audit" (its audit log, which
	// also names the caller).
	Source string `json:"source"`
	// TokenReviews and SubjectAccessReviews are the reviews created in the
	// iteration's window, by every caller.
	TokenReviews         int64 `json:"token_reviews"`
	SubjectAccessReviews int64 `json:"subject_access_reviews"`
	// TokenReviewsPerRequest and SARsPerRequest divide them by the
	// iteration's requests (0 when none).
	TokenReviewsPerRequest float64 `json:"token_reviews_per_request"`
	SARsPerRequest         float64 `json:"sars_per_request"`
	// TokenReviewMeanMs and SARMeanMs are the API server's mean time serving
	// one review (0 when none was made).
	TokenReviewMeanMs float64 `json:"token_review_mean_ms,omitempty"`
	SARMeanMs         float64 `json:"sar_mean_ms,omitempty"`
	// ReviewMsPerRequest is the API server's review time divided by the
	// iteration's requests: what the reviews add to a mean request when
	// they are on its path.
	ReviewMsPerRequest float64 `json:"review_ms_per_request"`
	// WindowS is the counted window in seconds and ReviewsPerS the
	// reviews of both kinds per second in it: the load the API server
	// took, which grows with an auth component's replicas.
	WindowS     float64 `json:"window_s,omitempty"`
	ReviewsPerS float64 `json:"reviews_per_s,omitempty"`
	// Callers splits the counts by the identity that asked (audit only),
	// e.g. "system:serviceaccount:authbench:kube-rbac-proxy".
	Callers []CallerReviews `json:"callers,omitempty"`
}

// CallerReviews is one caller's share of APIServerReviews.
type CallerReviews struct {
	Caller               string  `json:"caller"`
	TokenReviews         int64   `json:"token_reviews"`
	SubjectAccessReviews int64   `json:"subject_access_reviews"`
	ReviewMsPerRequest   float64 `json:"review_ms_per_request"`
	// ReviewsPerS is its reviews of both kinds per second of the window.
	ReviewsPerS float64 `json:"reviews_per_s,omitempty"`
}
