package cluster

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/kubeapi"
)

// Client is an admin client of the cluster's API (the admin cert), enough
// for readiness checks and raw REST calls.
type Client struct{ *kubeapi.Client }

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
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool}
	return &Client{kubeapi.New(fmt.Sprintf("https://127.0.0.1:%d", port), tc, "")}, nil
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
	if ok, err := c.GetJSON(ctx, kubeapi.Path("api", "v1", "nodes", NodeName), &n); !ok || err != nil {
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
	ok, err := c.GetJSON(ctx, kubeapi.Path("api", "v1", "namespaces", "default", "serviceaccounts", "default"), &v)
	return ok && err == nil
}
