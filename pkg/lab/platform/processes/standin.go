package processes

import (
	"context"
	"fmt"
	"os"

	"github.com/authbench/authbench/pkg/lab/standin"
	"github.com/authbench/authbench/pkg/stacks"
)

// standinExe is the program that runs a stand-in: this executable (the
// supervisor is authbench, or a test binary whose TestMain runs
// ServeIfAsked). Tests replace it.
var standinExe = os.Executable

// standin is one of authbench's own stand-ins (oauth-proxy,
// kube-auth-proxy) in front of a backend, configured through
// standin.Env, as the identity named as the component.
func (b *builder) standin(name, backend, mode string) (*spec, error) {
	exe, err := standinExe()
	if err != nil {
		return nil, fmt.Errorf("finding authbench's own binary for the %s stand-in: %w", mode, err)
	}
	kubeconfig := b.path("kubeconfig", name+".kubeconfig")
	c := standin.Config{Mode: mode, Listen: b.addr(name), CertFile: b.certs.Server, KeyFile: b.certs.ServerKey,
		Upstream: b.url("http", backend, "/"), Kubeconfig: kubeconfig,
		QPS: b.cfg.AuthzAPIQPS, TokenReviewCache: b.cfg.AuthzCache}
	if mode == stacks.ModeOAuthProxy {
		c.Resource = &standin.Resource{Namespace: stacks.Namespace, Verb: "get", Resource: "services",
			Subresource: "proxy", Name: stacks.EchoService}
	}
	env, err := c.Encode()
	if err != nil {
		return nil, err
	}
	info := b.info(name, exe)
	info.Version = "stand-in"
	info.Standin = b.cfg.StandinRecord(name)
	u := b.url("https", name, stacks.EchoPath)
	want := stacks.EchoText
	if mode == stacks.ModeKubeAuthProxy {
		want = stacks.AuthzOKText
	}
	return &spec{
		ComponentInfo: info,
		argv:          []string{exe, "lab", "standin"},
		env:           []string{standin.Env + "=" + env},
		ports:         portsOf(name),
		after:         []string{stacks.APIServer, stacks.Toxiproxy, backend},
		prepare: func() error {
			if err := c.Validate(); err != nil {
				return err
			}
			return stacks.RenderTo(kubeconfig, stacks.ConfigKubeconfig, b.kubeconfig(name))
		},
		// The admin passes both roles: a 200 proves the reviews and the
		// upstream work.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u, b.adminToken(), want, 200)
		},
	}, nil
}

// oauthProxy is the stand-in for openshift/oauth-proxy in 2x.
func (b *builder) oauthProxy() (*spec, error) {
	return b.standin(stacks.OAuthProxy, stacks.Echo2x, stacks.ModeOAuthProxy)
}

// kubeAuthProxyOAuth is the stand-in for kube-auth-proxy as 3x-oauth's
// ext_authz service, in front of its static 200.
func (b *builder) kubeAuthProxyOAuth() (*spec, error) {
	return b.standin(stacks.KubeAuthProxyOAuth, stacks.AuthzOKOAuth, stacks.ModeKubeAuthProxy)
}
