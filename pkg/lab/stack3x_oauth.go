package lab

import (
	"context"
	"fmt"
	"os"
	"strconv"
)

// Stack 3x-oauth, "Gateway + kube-auth-proxy (OpenShift OAuth) +
// kube-rbac-proxy": the migration reports' own 3.x runs, with opaque OpenShift
// OAuth tokens that no proxy can verify locally. The ext_authz service asks the
// API server (TokenReview, then SubjectAccessReview) before the sidecar asks
// again.

// portNginxOAuthDeny is where nginx-oauth turns a non-200 2xx from the
// ext_authz service into a 403, as Envoy does.
const portNginxOAuthDeny = "nginx-oauth-deny"

// The client-side rate limit of the 3x-oauth proxies' API clients. Left at
// client-go's default (5 QPS, burst 10), a run of cache misses would
// measure client-go's throttle, not the API server.
const (
	OAuthKubeAPIQPS   = 1000
	OAuthKubeAPIBurst = 2000
)

// KubeRBACProxyCache says how kube-rbac-proxy v0.19.1 caches: the values
// are compiled in (pkg/authn/delegating.go, pkg/authz/auth.go and
// k8s.io/apiserver's token cache and webhook authorizer); no flag turns the
// caches off or resizes them, so the lab defeats them with distinct tokens
// (--token-pool) instead.
const KubeRBACProxyCache = "TokenReview results cached 2m per token (unbounded, concurrent misses of one token coalesced); " +
	"SubjectAccessReview decisions in an LRU of 8192, allow 5m / deny 30s; no flag turns either off"

// kubeRBACProxyOAuth is 3x-oauth's sidecar in front of its http-echo.
func (b *builder) kubeRBACProxyOAuth() (*spec, error) {
	s, err := b.rbacProxy(CompKubeRBACProxyOAuth, Stack3xOAuth, CompKubeRBACProxyOAuth, CompEcho3xOAuth)
	if err != nil {
		return nil, err
	}
	s.Role = "rbac-proxy"
	s.argv = append(s.argv, apiRateArgs()...)
	return s, nil
}

// AuthzOKText is the ext_authz service's own answer: not the backend's, so
// that a ladder tells the ext_authz rung from a proxy by its body.
const AuthzOKText = "allowed by kube-auth-proxy"

// authzOK is the ext_authz service's upstream: kube-auth-proxy runs with
// --upstream=static://200, which kube-rbac-proxy has no equivalent of.
func (b *builder) authzOK() (*spec, error) {
	s, err := b.echo(CompAuthzOKOAuth, Stack3xOAuth)()
	if err != nil {
		return nil, err
	}
	s.argv[len(s.argv)-1] = "-text=" + AuthzOKText
	s.Role = "authz-upstream"
	s.Plays = "kube-auth-proxy's --upstream=static://200 (a 200 for every request the ext_authz service lets through)"
	return s, nil
}

// kubeAuthProxyOAuth is kube-rbac-proxy playing kube-auth-proxy in
// OpenShift OAuth mode as the ext_authz service: it validates the opaque
// bearer token with a TokenReview and authorises it with a
// SubjectAccessReview, with its caches.
func (b *builder) kubeAuthProxyOAuth() (*spec, error) {
	s, err := b.rbacProxy(CompKubeAuthProxyOAuth, Stack3xOAuth, CompKubeAuthProxyOAuth, CompAuthzOKOAuth)
	if err != nil {
		return nil, err
	}
	s.Role = "ext-authz"
	u := s.URL
	s.ready = func(ctx context.Context) error {
		return probeWithTokenFile(ctx, b.client, u, b.adminToken(), AuthzOKText, 200)
	}
	s.Plays = "kube-auth-proxy (OpenShift OAuth mode, ext_authz: TokenReview + SubjectAccessReview per bearer token; " + KubeRBACProxyCache + ")"
	s.argv = append(s.argv, apiRateArgs()...)
	return s, nil
}

func apiRateArgs() []string {
	return []string{"--kube-api-qps=" + strconv.Itoa(OAuthKubeAPIQPS), "--kube-api-burst=" + strconv.Itoa(OAuthKubeAPIBurst)}
}

// nginxOAuth plays 3x-oauth's Envoy gateway: auth_request to the ext_authz
// service over TLS, then the sidecar.
func (b *builder) nginxOAuth() (*spec, error) {
	bin, err := lookupTool("nginx")
	if err != nil {
		return nil, err
	}
	cfg := confPath(b.dir, "nginx-oauth.conf")
	prefix := b.path("data", "nginx-oauth")
	u := b.url("https", CompNginxOAuth, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompNginxOAuth, Stack: Stack3xOAuth, Role: "gateway",
			Program: "nginx", Plays: "Envoy (Gateway API gateway with HTTP ext_authz to kube-auth-proxy)",
			Version: toolVersion("nginx", bin), URL: u + EchoPath},
		argv:  []string{bin, "-e", "stderr", "-p", prefix, "-c", cfg},
		ports: []string{CompNginxOAuth, portNginxOAuthDeny},
		after: []string{CompKubeAuthProxyOAuth, CompKubeRBACProxyOAuth},
		prepare: func() error {
			for _, d := range []string{prefix, b.path("run")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return fmt.Errorf("creating %s: %w", d, err)
				}
			}
			return renderTo(cfg, "nginx-oauth.conf", b.data())
		},
		// Alice's static token through the whole stack: gateway, both
		// proxies' reviews, backend.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u+EchoPath, b.secrets.TokenFile(UserAlice), EchoText, 200)
		},
	}, nil
}
