// Package faultproxy drives the lab's fault proxy, Toxiproxy, through its
// HTTP API: it lays out the lab's links and their proxies, creates them,
// and turns a lab.Fault into toxics (and back), the same way on every
// platform.
package faultproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Client talks to one Toxiproxy API.
type Client struct {
	base string
	hc   *http.Client
}

// callTimeout bounds one API call: the API answers from memory, on
// loopback, in well under a millisecond.
const callTimeout = 10 * time.Second

// New returns a client of the API at addr (host:port).
func New(addr string) *Client {
	return &Client{base: "http://" + addr, hc: &http.Client{Timeout: callTimeout}}
}

// Proxy is one proxy of the fault proxy.
type Proxy struct {
	Name     string  `json:"name"`
	Listen   string  `json:"listen"`
	Upstream string  `json:"upstream"`
	Enabled  bool    `json:"enabled"`
	Toxics   []Toxic `json:"toxics,omitempty"`
}

// Toxic is one toxic of a proxy: Type is Toxiproxy's ("latency",
// "bandwidth"), Stream "upstream" (client to server) or "downstream".
type Toxic struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float64        `json:"toxicity"`
	Attributes map[string]int `json:"attributes"`
}

// Version asks the server its version (the readiness check).
func (c *Client) Version(ctx context.Context) (string, error) {
	var b bytes.Buffer
	if err := c.do(ctx, http.MethodGet, "/version", nil, &b); err != nil {
		return "", err
	}
	var v struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b.Bytes(), &v) == nil && v.Version != "" {
		return v.Version, nil
	}
	return string(bytes.TrimSpace(b.Bytes())), nil
}

// Populate creates the proxies, or replaces those of the same name.
func (c *Client) Populate(ctx context.Context, proxies []Proxy) error {
	return c.do(ctx, http.MethodPost, "/populate", proxies, nil)
}

// Proxies lists every proxy with its toxics, by name.
func (c *Client) Proxies(ctx context.Context) (map[string]Proxy, error) {
	var out map[string]Proxy
	return out, c.do(ctx, http.MethodGet, "/proxies", nil, &out)
}

// SetEnabled starts (listening again) or stops a proxy; stopping closes
// its listener and cuts its open connections.
func (c *Client) SetEnabled(ctx context.Context, proxy string, enabled bool) error {
	return c.do(ctx, http.MethodPatch, "/proxies/"+url.PathEscape(proxy), map[string]bool{"enabled": enabled}, nil)
}

// AddToxic adds a toxic to a proxy.
func (c *Client) AddToxic(ctx context.Context, proxy string, t Toxic) error {
	return c.do(ctx, http.MethodPost, "/proxies/"+url.PathEscape(proxy)+"/toxics", t, nil)
}

// RemoveToxic removes a proxy's toxic.
func (c *Client) RemoveToxic(ctx context.Context, proxy, toxic string) error {
	return c.do(ctx, http.MethodDelete, "/proxies/"+url.PathEscape(proxy)+"/toxics/"+url.PathEscape(toxic), nil, nil)
}

// do sends one API call with in as its JSON body and decodes a 2xx
// answer into out (a *bytes.Buffer takes it raw); any other status is an
// error carrying the API's message.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("toxiproxy %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("toxiproxy %s %s: %w", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("toxiproxy %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("toxiproxy %s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = string(bytes.TrimSpace(b))
		}
		return fmt.Errorf("toxiproxy %s %s: status %d: %s", method, path, resp.StatusCode, e.Error)
	}
	switch o := out.(type) {
	case nil:
		return nil
	case *bytes.Buffer:
		o.Write(b)
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("toxiproxy %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}
