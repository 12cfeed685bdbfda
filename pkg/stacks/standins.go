package stacks

import (
	"fmt"
	"strings"
	"time"
)

// ProgramStandin is authbench itself running one of its stand-ins (`lab
// standin`): the components no registry here serves
// (openshift/oauth-proxy, kube-auth-proxy) are played by a small server of
// the project's own that makes the same API calls, with the same caches,
// client rate limit and answers, as the real one.
const ProgramStandin = "authbench"

// Stand-in modes: which real component a stand-in plays.
const (
	ModeOAuthProxy    = "oauth-proxy"
	ModeKubeAuthProxy = "kube-auth-proxy"
)

// Client-go's default client-side rate limit, which kube-auth-proxy's API
// client runs at (it sets no QPS or burst of its own).
const (
	ClientGoQPS   = 5
	ClientGoBurst = 10
)

// Behaviour is what a stand-in does per request, as the real component it
// plays does: the API calls, their caches, its API client's rate limit and
// its answers. The values are the real component's defaults; a lab flag
// may change some for a what-if.
type Behaviour struct {
	Mode string
	// Real names the real component and the version it was compared with.
	Real string
	// SAR is whether it asks a SubjectAccessReview after the TokenReview.
	SAR bool
	// TokenReviewTTL caches a successful TokenReview per token (0: every
	// request asks); an unauthenticated answer is never cached.
	TokenReviewTTL time.Duration
	// AllowTTL and DenyTTL cache SubjectAccessReview decisions.
	AllowTTL, DenyTTL time.Duration
	// QPS and Burst are its API client's token bucket; with a
	// SubjectAccessReview, each kind of review has a client (and bucket)
	// of its own.
	QPS   float64
	Burst int
	// Status answers a missing or invalid token and a forbidden user; the
	// login page says the real one answers an HTML login page.
	NoToken, Invalid, Forbidden int
	LoginPage                   bool
	// PingPath answers 200 without authentication.
	PingPath string
	// Flag names the lab flag that changes its QPS ("" for none).
	Flag string
}

// OAuthProxyBehaviour is openshift/oauth-proxy with --provider=openshift
// and a delegate URL granting `get services/proxy echo`: a bearer token is
// a TokenReview then a SubjectAccessReview, both cached, through an API
// client hard-coded at 200 QPS, burst 400; every refusal is a 403 with its
// login page.
var OAuthProxyBehaviour = Behaviour{Mode: ModeOAuthProxy, Real: "openshift/oauth-proxy (master, --provider=openshift --openshift-delegate-urls)",
	SAR: true, TokenReviewTTL: 2 * time.Minute, AllowTTL: 2 * time.Minute, DenyTTL: 5 * time.Second,
	QPS: 200, Burst: 400, NoToken: 403, Invalid: 403, Forbidden: 403, LoginPage: true, PingPath: "/oauth/healthz"}

// KubeAuthProxyBehaviour is kube-auth-proxy in OpenShift mode with
// --enable-k8s-token-validation as the gateway's ext_authz service: one
// TokenReview per bearer request, no cache, no SubjectAccessReview,
// through client-go's default rate limit.
var KubeAuthProxyBehaviour = Behaviour{Mode: ModeKubeAuthProxy, Real: "kube-auth-proxy (opendatahub-io, commit 7608aa7d, --provider=openshift --enable-k8s-token-validation --upstream=static://200)",
	QPS: ClientGoQPS, Burst: ClientGoBurst, NoToken: 403, Invalid: 403, Forbidden: 200, PingPath: "/ping",
	Flag: "--authz-api-qps"}

// StandinBehaviour returns the behaviour of the component a stand-in plays
// (false for a component no stand-in plays).
func StandinBehaviour(component string) (Behaviour, bool) {
	switch component {
	case OAuthProxy:
		return OAuthProxyBehaviour, true
	case KubeAuthProxyOAuth:
		return KubeAuthProxyBehaviour, true
	}
	return Behaviour{}, false
}

// WhatIf changes a kube-auth-proxy behaviour for a lab's what-if: an API
// QPS (burst twice it, as client-go's callers usually set) and a
// TokenReview cache. Zero keeps the real component's value. Other roles
// are returned unchanged.
func (b Behaviour) WhatIf(qps float64, cache time.Duration) Behaviour {
	if b.Mode != ModeKubeAuthProxy {
		return b
	}
	if qps > 0 {
		b.QPS, b.Burst = qps, max(1, int(2*qps))
	}
	if cache > 0 {
		b.TokenReviewTTL = cache
	}
	return b
}

// CallsPerRequest is the API calls an uncached request makes.
func (b Behaviour) CallsPerRequest() int {
	if b.SAR {
		return 2
	}
	return 1
}

// Cap is the uncached requests a second one replica can serve before its
// client-side rate limit holds them: one call of each kind per request,
// each kind with its own bucket.
func (b Behaviour) Cap() float64 { return b.QPS }

// Cache says what it caches, for people.
func (b Behaviour) Cache() string {
	var parts []string
	if b.TokenReviewTTL > 0 {
		parts = append(parts, "TokenReview "+dur(b.TokenReviewTTL)+" per token (successes only)")
	}
	if b.SAR {
		parts = append(parts, fmt.Sprintf("SubjectAccessReview allow %s / deny %s", dur(b.AllowTTL), dur(b.DenyTTL)))
	}
	if len(parts) == 0 {
		return "no cache"
	}
	return strings.Join(parts, ", ")
}

// Describe states the behaviour for `lab status` and the reports.
func (b Behaviour) Describe() string {
	calls := "1 TokenReview"
	if b.SAR {
		calls += " + 1 SubjectAccessReview (get services/proxy " + EchoService + ")"
	} else {
		calls += ", no SubjectAccessReview (authentication only)"
	}
	perKind := ""
	if b.SAR {
		perKind = " for each kind of review"
	}
	page := ""
	if b.LoginPage {
		page = " (HTML login page)"
	}
	return fmt.Sprintf("authbench's stand-in for %s, TokenReview mode (the OpenShift users/~ path is not built): per uncached request %s; cache: %s; "+
		"API client %s QPS, burst %d%s (uncached requests capped at %s req/s per replica); no token / invalid token / forbidden user: %d / %d / %d%s",
		b.Real, calls, b.Cache(), fmtQPS(b.QPS), b.Burst, perKind, fmtQPS(b.Cap()), b.NoToken, b.Invalid, b.Forbidden, page)
}

func fmtQPS(q float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", q), "0"), ".")
}

// dur is "2m" rather than "2m0s".
func dur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}
