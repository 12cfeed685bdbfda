package processes

import (
	"context"

	"github.com/authbench/authbench/pkg/stacks"
)

// Stack 3x, "Gateway + kube-auth-proxy + kube-rbac-proxy".

// kubeRBACProxy is the 3x backend's kube-rbac-proxy sidecar.
func (b *builder) kubeRBACProxy() (*spec, error) {
	return b.rbacProxy(stacks.KubeRBACProxy, stacks.Echo3x)
}

// gateway is Envoy, a 3x stack's Gateway API gateway, with HTTP ext_authz
// to the stack's ext_authz service, then its sidecar.
func (b *builder) gateway(name string) func() (*spec, error) {
	return func() (*spec, error) {
		bin, err := lookupTool(stacks.ProgramEnvoy)
		if err != nil {
			return nil, err
		}
		c, _ := stacks.Lookup(name)
		st, _ := stacks.Get(c.Stack)
		ext, _ := st.ByRole(stacks.RoleExtAuthz)
		backend, _ := st.ByRole(stacks.RoleRBACProxy)
		cfg := stacks.ConfPath(b.dir, name+".yaml")
		gw := b.gatewayConfig(name)
		s := &spec{
			ComponentInfo: b.info(name, bin),
			argv:          append([]string{bin, "-c", cfg}, stacks.EnvoyArgs...),
			ports:         portsOf(name),
			after:         []string{ext.Name, backend.Name},
			prepare:       func() error { return stacks.RenderTo(cfg, stacks.ConfigGateway, gw) },
		}
		u := s.URL
		if c.Stack == stacks.Stack3x {
			s.ready = b.oidcChainReady(u)
		} else {
			// Alice's static token through the whole stack: gateway, both
			// proxies' reviews, backend.
			s.ready = func(ctx context.Context) error {
				return probeWithTokenFile(ctx, b.client, u, b.secrets.TokenFile(stacks.UserAlice), stacks.EchoText, 200)
			}
		}
		return s, nil
	}
}

// gatewayConfig is Envoy's config for gateway name: HTTP ext_authz to its
// stack's ext_authz service (over TLS when that serves TLS) with the lab's
// timeout and failure mode, then the stack's kube-rbac-proxy sidecar.
func (b *builder) gatewayConfig(name string) stacks.Gateway {
	c, _ := stacks.Lookup(name)
	st, _ := stacks.Get(c.Stack)
	ext, _ := st.ByRole(stacks.RoleExtAuthz)
	backend, _ := st.ByRole(stacks.RoleRBACProxy)
	ep := func(port string) stacks.Endpoint { return stacks.MustEndpoint(b.addr(port)) }
	return stacks.Gateway{Name: name, Stack: c.Stack, PathPrefix: "/",
		Listen: ep(name), Admin: ep(stacks.EnvoyAdminPort(name)), ExtAuthz: ep(ext.Name), ExtAuthzTLS: ext.Scheme == "https",
		Backend: ep(backend.Name), Timeout: b.cfg.AuthzTimeout, FailureMode: b.cfg.AuthzFailureMode,
		TLS: b.certs.TLSFiles(), AccessLog: b.path("logs", name+"-access.log")}
}

// oauth2Proxy plays kube-auth-proxy, the ext_authz service, verifying
// Keycloak JWTs itself.
func (b *builder) oauth2Proxy() (*spec, error) {
	bin, err := lookupTool(stacks.ProgramOAuth2Proxy)
	if err != nil {
		return nil, err
	}
	u := b.url("http", stacks.OAuth2Proxy, "")
	s := &spec{
		ComponentInfo: b.info(stacks.OAuth2Proxy, bin),
		argv: append([]string{bin,
			"--http-address=" + b.addr(stacks.OAuth2Proxy),
			"--metrics-address=" + b.addr(stacks.PortOAuth2ProxyMetrics),
			"--provider=oidc",
			"--oidc-issuer-url=" + b.issuerURL(),
			"--provider-ca-file=" + b.certs.CA,
			"--client-id=" + stacks.OIDCClientID,
			"--client-secret-file=" + b.secrets.ClientSecret,
			"--redirect-url=" + b.url("https", stacks.Envoy, "/oauth2/callback")},
			stacks.OAuth2ProxyArgs...),
		ports: portsOf(stacks.OAuth2Proxy),
		after: []string{stacks.Keycloak, stacks.Toxiproxy},
		ready: func(ctx context.Context) error { return probe(ctx, b.client, u+"/ping", "", "", 200) },
	}
	s.prepare = func() error {
		cookie, err := stacks.ReadSecret(b.secrets.CookieSecret)
		if err != nil {
			return err
		}
		// Through the environment, so the secret is not in the process list.
		s.env = []string{stacks.OAuth2ProxyCookieEnv + "=" + cookie}
		return nil
	}
	return s, nil
}

// oidcChainReady is the 3x stack's readiness: alice's Keycloak token is
// accepted by the kube-apiserver itself first (its OIDC authenticator
// initialises in the background; kube-rbac-proxy would cache a failure for
// two minutes), then gets a 200 through the whole stack.
func (b *builder) oidcChainReady(u string) func(context.Context) error {
	var token string
	return func(ctx context.Context) error {
		if token == "" {
			t, err := passwordGrant(ctx, b.client, b.issuerURL(), b.secrets, stacks.UserAlice)
			if err != nil {
				return err
			}
			token = t
		}
		if err := apiserverAccepts(ctx, b.client, b.url("https", stacks.APIServer, ""), token, stacks.UserAlice); err != nil {
			return err
		}
		return probe(ctx, b.client, u, token, stacks.EchoText, 200)
	}
}
