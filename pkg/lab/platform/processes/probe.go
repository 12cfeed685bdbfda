package processes

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/pkg/stacks"
)

// newLabClient is an HTTP client trusting the lab CA. Keep-alive is off so
// probes leave no idle connections in the components' books.
func newLabClient(caFile string) (*http.Client, error) {
	pool, err := capool.File(caFile, false)
	if err != nil {
		return nil, fmt.Errorf("reading lab CA: %w", err)
	}
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			DisableKeepAlives: true,
			Proxy:             nil,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, nil
}

// probe sends one GET with an optional bearer token and wants one of the
// given statuses (and, when set, a body containing contains).
func probe(ctx context.Context, c *http.Client, url, token, contains string, want ...int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if !slices.Contains(want, resp.StatusCode) {
		return fmt.Errorf("GET %s: status %d, want %v", url, resp.StatusCode, want)
	}
	if contains != "" && !strings.Contains(string(body), contains) {
		return fmt.Errorf("GET %s: body lacks %q", url, contains)
	}
	return nil
}

// probeWithTokenFile is probe with the token read from a file at call time.
func probeWithTokenFile(ctx context.Context, c *http.Client, url, tokenFile, contains string, want ...int) error {
	tok, err := stacks.ReadSecret(tokenFile)
	if err != nil {
		return err
	}
	return probe(ctx, c, url, tok, contains, want...)
}
