package standin

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// Env is the variable a stand-in reads its Config from, as JSON: the same
// way on every platform and from a test binary acting as authbench (no
// secret is in it; the API credentials stay in their files).
const Env = "AUTHBENCH_LAB_STANDIN"

// Config is one stand-in: the role it plays, where it listens, where it
// sends what it lets through, and how it reaches the API server.
type Config struct {
	// Mode is stacks.ModeOAuthProxy or stacks.ModeKubeAuthProxy. Required.
	Mode string `json:"mode"`
	// Listen is the TLS listener's 127.0.0.1:PORT. Required.
	Listen string `json:"listen"`
	// PodNetwork allows Listen on 0.0.0.0: in a pod of a user's cluster,
	// whose own network namespace only the pod's Service reaches.
	// Default false.
	PodNetwork bool `json:"pod_network,omitempty"`
	// CertFile and KeyFile are its serving certificate. Required.
	CertFile string `json:"cert_file"`
	KeyFile  string `json:"key_file"`
	// Upstream is where allowed requests go (http://127.0.0.1:PORT/).
	// Required.
	Upstream string `json:"upstream"`
	// Kubeconfig holds the API server and the stand-in's identity; ""
	// uses the pod's ServiceAccount (in-cluster).
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// Resource is oauth-proxy's SubjectAccessReview. Required in that mode.
	Resource *Resource `json:"resource,omitempty"`
	// QPS (<= 0: the mode's real value) and TokenReviewCache (0: the
	// mode's real value) are a lab's what-ifs.
	QPS              float64       `json:"qps,omitempty"`
	TokenReviewCache time.Duration `json:"token_review_cache,omitempty"`
}

// Behaviour is the mode's real behaviour with the config's what-ifs.
func (c Config) Behaviour() (stacks.Behaviour, error) {
	var b stacks.Behaviour
	switch c.Mode {
	case stacks.ModeOAuthProxy:
		b = stacks.OAuthProxyBehaviour
	case stacks.ModeKubeAuthProxy:
		b = stacks.KubeAuthProxyBehaviour
	default:
		return b, fmt.Errorf("stand-in mode %q: want %s or %s", c.Mode, stacks.ModeOAuthProxy, stacks.ModeKubeAuthProxy)
	}
	return b.WhatIf(c.QPS, c.TokenReviewCache), nil
}

// Validate checks the config before anything listens: a loopback listener,
// an http upstream on loopback, the files named, the SAR's resource.
func (c Config) Validate() error {
	b, err := c.Behaviour()
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(c.Listen)
	ip := net.ParseIP(host)
	if err != nil || ip == nil || !(ip.IsLoopback() || (c.PodNetwork && ip.IsUnspecified())) {
		return fmt.Errorf("stand-in listen %q: want 127.0.0.1:PORT", c.Listen)
	}
	u, err := url.Parse(c.Upstream)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" || net.ParseIP(u.Hostname()) == nil || !net.ParseIP(u.Hostname()).IsLoopback() {
		return fmt.Errorf("stand-in upstream %q: want http://127.0.0.1:PORT/", c.Upstream)
	}
	if c.CertFile == "" || c.KeyFile == "" {
		return fmt.Errorf("stand-in: give cert_file and key_file")
	}
	if b.SAR && (c.Resource == nil || c.Resource.Verb == "" || c.Resource.Resource == "") {
		return fmt.Errorf("stand-in %s: give the SubjectAccessReview's resource (verb, resource)", c.Mode)
	}
	if c.QPS < 0 || c.TokenReviewCache < 0 {
		return fmt.Errorf("stand-in: qps and token_review_cache must not be negative")
	}
	return nil
}

// Encode is the config as Env's value.
func (c Config) Encode() (string, error) {
	b, err := json.Marshal(c)
	return string(b), err
}

// Decode reads Env's value.
func Decode(s string) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return c, fmt.Errorf("reading $%s: %w", Env, err)
	}
	return c, c.Validate()
}
