// Package httpclient builds the HTTP clients that carry credentials (an
// identity provider's password and client secret, OpenSearch's Basic
// header, a bearer token for Prometheus or an API server). Such a client
// never follows a redirect: net/http would resend a 307's form body, and
// the Authorization header to another port of the same host, to wherever
// the server pointed. A redirect is an error naming where it pointed.
package httpclient

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"time"

	"github.com/authbench/authbench/pkg/redact"
)

// RedirectError is a redirect a client carrying credentials refused.
type RedirectError struct {
	// Status is the redirect's status code (301, 302, 303, 307, 308).
	Status int
	// Location is where it pointed, redacted.
	Location string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refused a redirect (status %d) to %s: a client carrying credentials does not follow redirects",
		e.Status, e.Location)
}

// NoRedirect is an http.Client CheckRedirect that refuses every redirect
// with a RedirectError, before anything is sent to its target. net/http
// quotes the raw Location in the error it wraps this in: clients made
// here also refuse in their transport (Refuse), which names the request's
// own URL instead.
func NoRedirect(req *http.Request, _ []*http.Request) error {
	e := &RedirectError{Location: location(req.URL.String())}
	if req.Response != nil {
		e.Status = req.Response.StatusCode
	}
	return e
}

// New returns a client over a clone of http.DefaultTransport (proxy from
// the environment, keep-alives, HTTP/2) with tc (nil: Go's defaults),
// each request bounded by timeout (0: none), refusing redirects.
func New(tc *tls.Config, timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if tc != nil {
		tr.TLSClientConfig = tc
	}
	return &http.Client{Transport: Refuse(tr), Timeout: timeout, CheckRedirect: NoRedirect}
}

// Refuse wraps a transport so that a redirect answer becomes a
// RedirectError, its body discarded.
func Refuse(rt http.RoundTripper) http.RoundTripper { return refuser{rt} }

type refuser struct{ next http.RoundTripper }

func (r refuser) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || !isRedirect(resp) {
		return resp, err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if u, err := resp.Location(); err == nil {
		loc = u.String()
	}
	return nil, &RedirectError{Status: resp.StatusCode, Location: location(loc)}
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// wrapped transport.
func (r refuser) CloseIdleConnections() {
	if c, ok := r.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// isRedirect is what net/http's client would follow.
func isRedirect(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
}

// location redacts a redirect's target, absolute or relative.
func location(s string) string { return redact.Text(redact.URL(s)) }
