package cluster

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
)

// Client is a minimal admin client of the cluster's API (the admin cert),
// enough for readiness checks and raw REST calls.
type Client struct {
	Server string // https://127.0.0.1:PORT
	HTTP   *http.Client
}

// NewClient returns an admin client of the cluster in dir.
func NewClient(dir string, port int) (*Client, error) {
	p := paths{dir}
	cert, err := tls.LoadX509KeyPair(p.pki("admin.crt"), p.pki("admin.key"))
	if err != nil {
		return nil, fmt.Errorf("loading the admin credential: %w", err)
	}
	pool, err := capool.File(p.pki("ca.crt"), false)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's CA: %w", err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool}}
	return &Client{Server: fmt.Sprintf("https://127.0.0.1:%d", port), HTTP: &http.Client{Transport: httpclient.Refuse(tr), Timeout: 30 * time.Second, CheckRedirect: httpclient.NoRedirect}}, nil
}

// Do sends a request to path and returns the status and body.
func (c *Client) Do(ctx context.Context, method, path, contentType string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.Server+path, body)
	if err != nil {
		return 0, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, b, err
}

// GetJSON GETs path into v; found is false on 404.
func (c *Client) GetJSON(ctx context.Context, path string, v any) (found bool, err error) {
	code, b, err := c.Do(ctx, http.MethodGet, path, "", nil)
	switch {
	case err != nil:
		return false, err
	case code == http.StatusNotFound:
		return false, nil
	case code != http.StatusOK:
		return false, fmt.Errorf("GET %s: %d %s", path, code, b)
	}
	return true, json.Unmarshal(b, v)
}

// nodeReady reports whether the node is Ready and carries no taint (the
// node controller's not-ready taints go only after it sees Ready).
func (c *Client) nodeReady(ctx context.Context) bool {
	var n struct {
		Spec struct {
			Taints []json.RawMessage `json:"taints"`
		} `json:"spec"`
		Status struct {
			Conditions []struct{ Type, Status string } `json:"conditions"`
		} `json:"status"`
	}
	if ok, err := c.GetJSON(ctx, "/api/v1/nodes/"+NodeName, &n); !ok || err != nil {
		return false
	}
	for _, cd := range n.Status.Conditions {
		if cd.Type == "Ready" {
			return cd.Status == "True" && len(n.Spec.Taints) == 0
		}
	}
	return false
}

// defaultSA reports whether the default ServiceAccount of the default
// namespace exists: before it, pods are refused.
func (c *Client) defaultSA(ctx context.Context) bool {
	var v map[string]any
	ok, err := c.GetJSON(ctx, "/api/v1/namespaces/default/serviceaccounts/default", &v)
	return ok && err == nil
}
