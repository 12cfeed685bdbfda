// Package kubeapi is authbench's one client of the Kubernetes REST API: a
// server URL, a TLS configuration and an optional bearer token. It never
// follows a redirect, and its paths are built from escaped segments
// (Path), never pasted together from strings.
package kubeapi

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// maxBody bounds a response read into memory (a list of every pod).
const maxBody = 64 << 20

// Client talks to one API server.
type Client struct {
	Server string // https://HOST:PORT, no trailing slash
	// HTTP sends the requests; New sets one that never follows redirects.
	HTTP  *http.Client
	token string // never logged or written
}

// New returns a client of server with tc's TLS settings (CA, client
// certificate) and, when token is not "", a bearer token.
func New(server string, tc *tls.Config, token string) *Client {
	return &Client{
		Server: strings.TrimSuffix(server, "/"),
		HTTP: &http.Client{Timeout: 30 * time.Second, CheckRedirect: noRedirects,
			Transport: &http.Transport{TLSClientConfig: tc}},
		token: token,
	}
}

// WithToken is c sending token instead (same server and connections), for
// a caller that acts as several users, e.g. an admin then each test user.
func (c *Client) WithToken(token string) *Client {
	cp := *c
	cp.token = token
	return &cp
}

// noRedirects keeps the redirect response itself: Do turns it into an
// error naming where it pointed, and the credential goes nowhere else.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Do sends one request and returns the status and body. A redirect is an
// error naming its target.
func (c *Client) Do(ctx context.Context, method string, p URLPath, contentType string, body io.Reader) (int, []byte, error) {
	resp, err := c.send(ctx, c.HTTP, method, p, contentType, body)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return resp.StatusCode, b, fmt.Errorf("%s %s: reading the response: %w", method, p, err)
	}
	return resp.StatusCode, b, nil
}

// GetJSON GETs p into v; found is false on 404.
func (c *Client) GetJSON(ctx context.Context, p URLPath, v any) (found bool, err error) {
	code, b, err := c.Do(ctx, http.MethodGet, p, "", nil)
	switch {
	case err != nil:
		return false, err
	case code == http.StatusNotFound:
		return false, nil
	case code != http.StatusOK:
		return false, fmt.Errorf("GET %s: %d %s", p, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("GET %s: %w", p, err)
	}
	return true, nil
}

// Stream GETs p and returns the open body, for responses that do not end
// (pod logs with follow=true): no client timeout applies, ctx ends it.
func (c *Client) Stream(ctx context.Context, p URLPath) (io.ReadCloser, error) {
	hc := &http.Client{Transport: c.HTTP.Transport, CheckRedirect: noRedirects}
	resp, err := c.send(ctx, hc, http.MethodGet, p, "", nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %d %s", p, resp.StatusCode, Message(b))
	}
	return resp.Body, nil
}

// send checks p, sends the request and refuses a redirect.
func (c *Client) send(ctx context.Context, hc *http.Client, method string, p URLPath, contentType string, body io.Reader) (*http.Response, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Server+p.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, p, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, p, err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: the API server redirected (%d) to %q; authbench never follows a redirect",
			method, p, resp.StatusCode, resp.Header.Get("Location"))
	}
	return resp, nil
}

// Message is the message of a Kubernetes Status body, else the body's
// first 300 bytes, for error text.
func Message(b []byte) string {
	var s struct{ Message string }
	if json.Unmarshal(b, &s) == nil && s.Message != "" {
		return s.Message
	}
	if len(b) > 300 {
		b = b[:300]
	}
	return string(b)
}
