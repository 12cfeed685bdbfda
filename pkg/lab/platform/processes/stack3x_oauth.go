package processes

import (
	"context"

	"github.com/authbench/authbench/pkg/stacks"
)

// Stack 3x-oauth, "Gateway + kube-auth-proxy (OpenShift OAuth) +
// kube-rbac-proxy": the migration reports' own 3.x runs, with opaque
// OpenShift OAuth tokens that no proxy can verify locally. The ext_authz
// service asks the API server (TokenReview, then SubjectAccessReview)
// before the sidecar asks again.

// kubeRBACProxyOAuth is 3x-oauth's sidecar in front of its http-echo.
func (b *builder) kubeRBACProxyOAuth() (*spec, error) {
	s, err := b.rbacProxy(stacks.KubeRBACProxyOAuth, stacks.Echo3xOAuth)
	if err != nil {
		return nil, err
	}
	s.argv = append(s.argv, stacks.KubeAPIRateArgs()...)
	return s, nil
}

// authzOK is the ext_authz service's upstream: kube-auth-proxy runs with
// --upstream=static://200, which kube-rbac-proxy has no equivalent of.
func (b *builder) authzOK() (*spec, error) {
	s, err := b.echo(stacks.AuthzOKOAuth)()
	if err != nil {
		return nil, err
	}
	s.argv[len(s.argv)-1] = "-text=" + stacks.AuthzOKText
	return s, nil
}

// kubeAuthProxyOAuth is kube-rbac-proxy playing kube-auth-proxy in
// OpenShift OAuth mode as the ext_authz service: it validates the opaque
// bearer token with a TokenReview and authorises it with a
// SubjectAccessReview, with its caches.
func (b *builder) kubeAuthProxyOAuth() (*spec, error) {
	s, err := b.rbacProxy(stacks.KubeAuthProxyOAuth, stacks.AuthzOKOAuth)
	if err != nil {
		return nil, err
	}
	u := s.URL
	s.ready = func(ctx context.Context) error {
		return probeWithTokenFile(ctx, b.client, u, b.adminToken(), stacks.AuthzOKText, 200)
	}
	s.argv = append(s.argv, stacks.KubeAPIRateArgs()...)
	return s, nil
}
