package lab

import "context"

// Stack 2x, "Route + oauth-proxy", and the backends and RBAC proxies.

// echo is http-echo, one stack's backend.
func (b *builder) echo(name, stack string) func() (*spec, error) {
	return func() (*spec, error) {
		bin, err := lookupTool("http-echo")
		if err != nil {
			return nil, err
		}
		u := b.url("http", name, "")
		return &spec{
			ComponentInfo: ComponentInfo{Name: name, Stack: stack, Role: "backend",
				Program: "http-echo", Version: toolVersion("http-echo", bin), URL: u + EchoPath},
			argv:  []string{bin, "-listen=" + b.addr(name), "-text=" + EchoText},
			ports: []string{name},
			ready: func(ctx context.Context) error { return probe(ctx, b.client, u+"/health", "", "ok", 200) },
		}, nil
	}
}

// rbacProxy is kube-rbac-proxy in front of a backend: TokenReview and
// SubjectAccessReview against the kube-apiserver, with its caches.
func (b *builder) rbacProxy(name, stack, identity, backend string) (*spec, error) {
	bin, err := lookupTool("kube-rbac-proxy")
	if err != nil {
		return nil, err
	}
	kubeconfig := b.path("kubeconfig", identity+".kubeconfig")
	config := confPath(b.dir, name+".yaml")
	u := b.url("https", name, "")
	return &spec{
		ComponentInfo: ComponentInfo{Program: "kube-rbac-proxy", Name: name, Stack: stack,
			Version: toolVersion("kube-rbac-proxy", bin), URL: u + EchoPath},
		argv: []string{bin,
			"--secure-listen-address=" + b.addr(name),
			"--upstream=" + b.url("http", backend, "/"),
			"--tls-cert-file=" + b.certs.Server, "--tls-private-key-file=" + b.certs.ServerKey,
			"--kubeconfig=" + kubeconfig,
			"--config-file=" + config,
			"--v=0"},
		ports: []string{name},
		after: []string{CompAPIServer, backend},
		prepare: func() error {
			d := b.data()
			d.User, d.TokenFile = identity, b.secrets.TokenFile(identity)
			if err := renderTo(kubeconfig, "kubeconfig", d); err != nil {
				return err
			}
			return renderTo(config, "kube-rbac-proxy.yaml", b.data())
		},
		// The admin may read the echo service: a 200 proves TokenReview,
		// SAR and the upstream all work.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u+EchoPath, b.adminToken(), EchoText, 200)
		},
	}, nil
}

// oauthProxy is kube-rbac-proxy playing openshift/oauth-proxy in 2x.
func (b *builder) oauthProxy() (*spec, error) {
	s, err := b.rbacProxy(CompOAuthProxy, Stack2x, "oauth-proxy", CompEcho2x)
	if err != nil {
		return nil, err
	}
	s.Role = "oauth-proxy"
	s.Plays = "openshift/oauth-proxy (TokenReview + SubjectAccessReview with caching)"
	return s, nil
}

// haproxy plays the OpenShift router serving the 2x Route.
func (b *builder) haproxy() (*spec, error) {
	bin, err := lookupTool("haproxy")
	if err != nil {
		return nil, err
	}
	cfg := confPath(b.dir, "haproxy.cfg")
	u := b.url("https", CompHAProxy, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompHAProxy, Stack: Stack2x, Role: "route",
			Program: "haproxy", Plays: "an OpenShift Route (router HAProxy, edge TLS termination)",
			Version: toolVersion("haproxy", bin), URL: u + EchoPath},
		argv:    []string{bin, "-db", "-f", cfg},
		ports:   []string{CompHAProxy},
		after:   []string{CompOAuthProxy},
		prepare: func() error { return renderTo(cfg, "haproxy.cfg", b.data()) },
		// Alice through the whole stack: route, TokenReview, SAR, backend.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u+EchoPath, b.secrets.TokenFile(UserAlice), EchoText, 200)
		},
	}, nil
}
