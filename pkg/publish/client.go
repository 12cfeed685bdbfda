package publish

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/redact"
)

// Client talks to one OpenSearch or Elasticsearch server over its REST
// API; both speak the same bulk, search and index template APIs.
type Client struct {
	cfg    Config
	base   *url.URL
	hc     *http.Client
	tokens auth.TokenSource
	user   string
	pass   string
	// scrub holds the password and its Basic header, for answers that
	// echo them.
	scrub redact.Scrubber
}

// NewClient checks cfg and prepares TLS and credentials. The token
// source's background work lives as long as ctx.
func NewClient(ctx context.Context, cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base, _ := url.Parse(strings.TrimRight(cfg.URL, "/"))
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CACert != "" {
		pool, err := caPool(cfg.CACert)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// No redirects: the Basic header would follow one to another port.
	c := &Client{cfg: cfg, base: base, hc: httpclient.New(tc, timeout), user: cfg.User}
	if cfg.User != "" {
		p, err := cfg.password()
		if err != nil {
			return nil, err
		}
		c.pass = p
		c.scrub.Add(p, base64.StdEncoding.EncodeToString([]byte(cfg.User+":"+p)))
	}
	if cfg.Token != nil {
		ts, err := auth.New(ctx, cfg.Token)
		if err != nil {
			return nil, fmt.Errorf("opensearch token: %w", err)
		}
		c.tokens = ts
	}
	return c, nil
}

// caPool is the system pool plus the PEM file's certificates.
func caPool(file string) (*x509.CertPool, error) {
	pool, err := capool.File(file, true)
	if err != nil {
		return nil, fmt.Errorf("reading opensearch CA: %w", err)
	}
	return pool, nil
}

// Index is the index the client writes to.
func (c *Client) Index() string { return c.cfg.index() }

// URL is the server's address without credentials, for messages.
func (c *Client) URL() string { return c.base.Redacted() }

// do sends one request and returns the status and body. Statuses are the
// caller's business; only transport failures are errors.
func (c *Client) do(ctx context.Context, method, path string, body []byte, ctype string) (int, []byte, error) {
	u := c.base.JoinPath(path)
	if i := strings.IndexByte(path, '?'); i >= 0 {
		u = c.base.JoinPath(path[:i])
		u.RawQuery = path[i+1:]
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("opensearch %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	switch {
	case c.user != "":
		req.SetBasicAuth(c.user, c.pass)
	case c.tokens != nil:
		tok, err := c.tokens.Token(ctx)
		if err != nil {
			return 0, nil, fmt.Errorf("opensearch token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("opensearch %s %s: %w", method, c.URL()+"/"+strings.TrimLeft(path, "/"), c.scrub.Error(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("opensearch %s %s: reading answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		// A refusal is quoted in errors: it must not echo the credentials.
		b = []byte(c.scrub.Scrub(string(b)))
	}
	return resp.StatusCode, b, nil
}

// doJSON sends v as JSON and decodes a 2xx answer into out (if not nil).
func (c *Client) doJSON(ctx context.Context, method, path string, v, out any) error {
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			return fmt.Errorf("opensearch %s %s: %w", method, path, err)
		}
	}
	status, b, err := c.do(ctx, method, path, body, "application/json")
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return statusError(method, path, status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("opensearch %s %s: decoding answer: %w", method, path, err)
		}
	}
	return nil
}

// statusError names the status and the server's reason, cut short.
func statusError(method, path string, status int, body []byte) error {
	msg := strings.TrimSpace(string(body))
	var e struct {
		Error struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Reason != "" {
		msg = e.Error.Type + ": " + e.Error.Reason
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("opensearch %s %s: %s (check --opensearch-user/--opensearch-password-file or --opensearch-token-*)", method, path, http.StatusText(status))
	}
	return fmt.Errorf("opensearch %s %s: status %d: %s", method, path, status, msg)
}
