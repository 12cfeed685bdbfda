package standin

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/stacks"
)

// Server is one stand-in's HTTP handler.
type Server struct {
	b         stacks.Behaviour
	api       *api
	resource  Resource
	reviews   *cache[review]
	decisions *cache[bool]
	proxy     *httputil.ReverseProxy
}

// New builds the handler of c (validated) with client as its API client.
func New(c Config, client *kubeapi.Client) (*Server, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b, _ := c.Behaviour()
	up, _ := url.Parse(c.Upstream)
	s := &Server{b: b, api: &api{client: client, authn: newLimiter(b.QPS, b.Burst), authz: newLimiter(b.QPS, b.Burst)}}
	if c.Resource != nil {
		s.resource = *c.Resource
	}
	if b.TokenReviewTTL > 0 {
		ttl := b.TokenReviewTTL
		s.reviews = newCache(func(r review) time.Duration {
			if r.Authenticated {
				return ttl
			}
			return 0
		})
	}
	if b.SAR {
		s.decisions = newCache(func(allowed bool) time.Duration {
			if allowed {
				return b.AllowTTL
			}
			return b.DenyTTL
		})
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	s.proxy = &httputil.ReverseProxy{Transport: tr, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(up)
		pr.Out.Host = pr.In.Host
	}}
	return s, nil
}

// identityHeaders are what the real proxies set upstream; a client's own
// are dropped so that no one can claim an identity past the proxy.
var identityHeaders = []string{"X-Forwarded-User", "X-Forwarded-Email", "X-Forwarded-Groups",
	"X-Forwarded-Preferred-Username", "X-Forwarded-Access-Token",
	"X-Auth-Request-User", "X-Auth-Request-Email", "X-Auth-Request-Groups"}

// ServeHTTP authenticates (and for oauth-proxy authorises) the bearer
// token, then proxies the request upstream with the user's headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == s.b.PingPath {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("OK"))
		return
	}
	for _, h := range identityHeaders {
		r.Header.Del(h)
	}
	token, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		s.refuse(w, s.b.NoToken)
		return
	}
	rv, err := s.reviews.get(token, func() (review, error) { return s.api.tokenReview(r.Context(), token) })
	if err != nil {
		s.fail(w, r)
		return
	}
	if !rv.Authenticated {
		s.refuse(w, s.b.Invalid)
		return
	}
	if s.b.SAR {
		allowed, err := s.decisions.get(userKey(rv.User), func() (bool, error) {
			return s.api.accessReview(r.Context(), rv.User, s.resource)
		})
		if err != nil {
			s.fail(w, r)
			return
		}
		if !allowed {
			s.refuse(w, s.b.Forbidden)
			return
		}
	}
	s.pass(w, r, rv.User)
}

// pass sends the request upstream as the user, as the real proxies do:
// oauth-proxy with X-Forwarded-User (and -Email, its user name when it
// has no e-mail), kube-auth-proxy with X-Forwarded-User and -Groups and,
// to the gateway, X-Auth-Request-User.
func (s *Server) pass(w http.ResponseWriter, r *http.Request, u User) {
	r.Header.Set("X-Forwarded-User", u.Name)
	switch s.b.Mode {
	case stacks.ModeOAuthProxy:
		r.Header.Set("X-Forwarded-Email", u.Name)
	case stacks.ModeKubeAuthProxy:
		if len(u.Groups) > 0 {
			r.Header.Set("X-Forwarded-Groups", strings.Join(u.Groups, ","))
		}
		w.Header().Set("X-Auth-Request-User", u.Name)
	}
	s.proxy.ServeHTTP(w, r)
}

// bearer reads "Bearer TOKEN" (the scheme in any case).
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
}

func userKey(u User) string { return u.Name + "\x00" + u.UID + "\x00" + strings.Join(u.Groups, "\x00") }

// refuse answers a refusal: oauth-proxy's is its login page (the sign-in
// it would start for a browser), kube-auth-proxy's a short error page.
func (s *Server) refuse(w http.ResponseWriter, code int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache, no-store, must-revalidate")
	w.WriteHeader(code)
	if s.b.LoginPage {
		_, _ = w.Write([]byte(loginPage))
		return
	}
	_, _ = fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><title>%d %s</title></head><body><h1>%d %[2]s</h1></body></html>\n",
		code, http.StatusText(code), code)
}

// fail answers an API call that did not complete (API server error, the
// client gave up while the rate limiter held it).
func (s *Server) fail(w http.ResponseWriter, r *http.Request) {
	if r.Context().Err() != nil {
		return // the client is gone: no one reads an answer
	}
	http.Error(w, "Internal Error", http.StatusInternalServerError)
}

// loginPage is the stand-in's own sign-in page for the oauth-proxy role.
const loginPage = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Log In</title></head>
<body>
<h1>Log in</h1>
<p>This page is protected. Sign in with your cluster account to continue.</p>
<form method="GET" action="/oauth/start"><button type="submit">Log in with OpenShift</button></form>
</body>
</html>
`
