package processes

import (
	"github.com/authbench/authbench/pkg/stacks"
)

// Stack 3x-oauth, "Gateway + kube-auth-proxy (OpenShift OAuth) +
// kube-rbac-proxy": the migration reports' own 3.x runs, with opaque
// OpenShift OAuth tokens that no proxy can verify locally. The ext_authz
// service (the kube-auth-proxy stand-in) asks the API server for a
// TokenReview on every request; the sidecar then reviews and authorises
// the token again, with its caches.

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
// --upstream=static://200; the stand-in proxies to this text server, so
// that a ladder tells the ext_authz rung by its body.
func (b *builder) authzOK() (*spec, error) {
	s, err := b.echo(stacks.AuthzOKOAuth)()
	if err != nil {
		return nil, err
	}
	s.argv[len(s.argv)-1] = "-text=" + stacks.AuthzOKText
	return s, nil
}
