package lab

import (
	"context"
	"fmt"
	"os"
)

// Stack 3x, "Gateway + kube-auth-proxy + kube-rbac-proxy".

// kubeRBACProxy is the 3x backend's kube-rbac-proxy sidecar.
func (b *builder) kubeRBACProxy() (*spec, error) {
	s, err := b.rbacProxy(CompKubeRBACProxy, Stack3x, "kube-rbac-proxy", CompEcho3x)
	if err != nil {
		return nil, err
	}
	s.Role = "rbac-proxy"
	return s, nil
}

// nginx plays the Envoy gateway with HTTP ext_authz.
func (b *builder) nginx() (*spec, error) {
	bin, err := lookupTool("nginx")
	if err != nil {
		return nil, err
	}
	cfg := confPath(b.dir, "nginx.conf")
	prefix := b.path("data", "nginx")
	u := b.url("https", CompNginx, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompNginx, Stack: Stack3x, Role: "gateway",
			Program: "nginx", Plays: "Envoy (Gateway API gateway with HTTP ext_authz)",
			Version: toolVersion("nginx", bin), URL: u + EchoPath},
		argv:  []string{bin, "-e", "stderr", "-p", prefix, "-c", cfg},
		ports: []string{CompNginx, "nginx-deny"},
		after: []string{CompOAuth2Proxy, CompKubeRBACProxy},
		prepare: func() error {
			for _, d := range []string{prefix, b.path("run")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return fmt.Errorf("creating %s: %w", d, err)
				}
			}
			return renderTo(cfg, "nginx.conf", b.data())
		},
		ready: b.oidcChainReady(u + EchoPath),
	}, nil
}

// PortOAuth2ProxyMetrics names, in State.Ports, the port where oauth2-proxy
// serves /metrics, its Go process metrics among them (what a Prometheus
// sampler with observe.ProcessProfile reads).
const PortOAuth2ProxyMetrics = "oauth2-proxy-metrics"

// oauth2Proxy plays kube-auth-proxy, the ext_authz service, verifying
// Keycloak JWTs itself.
func (b *builder) oauth2Proxy() (*spec, error) {
	bin, err := lookupTool("oauth2-proxy")
	if err != nil {
		return nil, err
	}
	u := b.url("http", CompOAuth2Proxy, "")
	s := &spec{
		ComponentInfo: ComponentInfo{Name: CompOAuth2Proxy, Stack: Stack3x, Role: "ext-authz",
			Program: "oauth2-proxy", Plays: "kube-auth-proxy (its upstream; OIDC JWT verification as ext_authz)",
			Version: toolVersion("oauth2-proxy", bin), URL: u + EchoPath},
		argv: []string{bin,
			"--http-address=" + b.addr(CompOAuth2Proxy),
			"--metrics-address=" + b.addr(PortOAuth2ProxyMetrics),
			"--provider=oidc",
			"--oidc-issuer-url=" + b.issuerURL(),
			"--provider-ca-file=" + b.certs.CA,
			"--client-id=" + OIDCClientID,
			"--client-secret-file=" + b.secrets.ClientSecret,
			"--redirect-url=" + b.url("https", CompNginx, "/oauth2/callback"),
			"--email-domain=*",
			"--insecure-oidc-allow-unverified-email=true",
			"--upstream=static://200",
			"--skip-jwt-bearer-tokens=true",
			"--force-json-errors=true",
			"--reverse-proxy=true",
			"--silence-ping-logging=true",
		},
		ports: []string{CompOAuth2Proxy, PortOAuth2ProxyMetrics},
		after: []string{CompKeycloak},
		ready: func(ctx context.Context) error { return probe(ctx, b.client, u+"/ping", "", "", 200) },
	}
	s.prepare = func() error {
		cookie, err := readSecret(b.secrets.CookieSecret)
		if err != nil {
			return err
		}
		// Through the environment, so the secret is not in the process list.
		s.env = []string{"OAUTH2_PROXY_COOKIE_SECRET=" + cookie}
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
			t, err := passwordGrant(ctx, b.client, b.issuerURL(), b.secrets, UserAlice)
			if err != nil {
				return err
			}
			token = t
		}
		if err := apiserverAccepts(ctx, b.client, b.url("https", CompAPIServer, ""), token, UserAlice); err != nil {
			return err
		}
		return probe(ctx, b.client, u, token, EchoText, 200)
	}
}
