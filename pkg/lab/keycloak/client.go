package keycloak

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
)

// HTTPClient returns a client that trusts only c's CA and talks to Keycloak
// on 127.0.0.1. Callers that need a token from the lab realm can use it.
func HTTPClient(c Config) (*http.Client, error) {
	c = c.WithDefaults()
	pool, err := capool.File(c.CAFile, false)
	if err != nil {
		return nil, fmt.Errorf("reading keycloak CA file: %w", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // the lab is loopback only; an HTTPS_PROXY must not see it
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	// Generous: creating a realm takes tens of seconds on a busy 2-core machine.
	return &http.Client{Transport: httpclient.Refuse(tr), Timeout: 3 * time.Minute, CheckRedirect: httpclient.NoRedirect}, nil
}

// httpError is a non-2xx answer; Body is Keycloak's error text, trimmed.
type httpError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *httpError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// statusOf returns the HTTP status of an *httpError, or 0.
func statusOf(err error) int {
	if he, ok := err.(*httpError); ok {
		return he.Status
	}
	return 0
}

// do sends one request and decodes a JSON answer into out (if non-nil).
// The request and response bodies may hold secrets: they never appear in
// errors, only Keycloak's error message does.
func do(ctx context.Context, hc *http.Client, method, url, bearer string, body any, out any) error {
	var rd io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case formBody:
		rd, contentType = strings.NewReader(b.Values.Encode()), "application/x-www-form-urlencoded"
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("encoding %s %s: %w", method, url, err)
		}
		rd, contentType = bytes.NewReader(buf), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return fmt.Errorf("building %s %s: %w", method, url, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", method, url, err)
	}
	if resp.StatusCode/100 != 2 {
		return &httpError{Method: method, URL: url, Status: resp.StatusCode, Body: errorMessage(data)}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("decoding %s %s: %w", method, url, err)
		}
	}
	return nil
}

// formBody marks a request body sent as a form rather than JSON.
type formBody struct{ url.Values }

// errorMessage extracts Keycloak's error text from an error body: the
// errorMessage/error/error_description fields, or else the first 200 bytes.
func errorMessage(data []byte) string {
	var e struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
		ErrorMessage     string `json:"errorMessage"`
	}
	if json.Unmarshal(data, &e) == nil {
		var parts []string
		for _, p := range []string{e.ErrorMessage, e.Error, e.ErrorDescription} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, ": ")
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
