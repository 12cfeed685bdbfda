package manifests

import (
	"encoding/base64"

	"github.com/authbench/authbench/pkg/stacks"
)

// Build returns the stack's objects in apply order.
func Build(o Options) ([]Object, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	ns := o.namespace()
	objs := []Object{obj("v1", "Namespace", meta(ns, "", o.Stack), nil), o.servingSecret()}
	objs = append(objs, o.rbac()...)
	switch o.Stack {
	case stacks.Stack2x:
		more, err := o.stack2x()
		return append(objs, more...), err
	case stacks.Stack3xOAuth:
		more, err := o.stack3xOAuth()
		return append(objs, more...), err
	}
	return append(objs, o.stack3x()...), nil
}

func (o Options) servingSecret() Object {
	b := func(p []byte) string { return base64.StdEncoding.EncodeToString(p) }
	return obj("v1", "Secret", meta(ServingSecret, o.namespace(), Shared), Object{"type": "kubernetes.io/tls",
		"data": Object{"tls.crt": b(o.Serving.Cert), "tls.key": b(o.Serving.Key), "ca.crt": b(o.Serving.CA),
			// stacks.HAProxy loads certificate and key from one file.
			"bundle.pem": b(append(append([]byte{}, o.Serving.Cert...), o.Serving.Key...))}})
}

// proxySAs are the stack's kube-rbac-proxy ServiceAccounts, each named
// as its proxy (so that the audit log tells their reviews apart).
func (o Options) proxySAs() []string {
	switch o.Stack {
	case stacks.Stack2x:
		return []string{stacks.OAuthProxy}
	case stacks.Stack3xOAuth:
		return []string{stacks.KubeAuthProxyOAuth, stacks.KubeRBACProxyOAuth}
	}
	return []string{stacks.KubeRBACProxy}
}

// rbac: each proxy's ServiceAccount may create TokenReviews and
// SubjectAccessReviews (the built-in system:auth-delegator); alice and the
// token pool's users may `get services/proxy echo`, bob may not. alice is
// both a user (the lab's tokens and OIDC) and a ServiceAccount (tokens
// from the TokenRequest API).
func (o Options) rbac() []Object {
	ns := o.namespace()
	role := "authbench-echo-reader-" + o.Stack
	var objs, bindings []Object
	for _, sa := range o.proxySAs() {
		objs = append(objs, obj("v1", "ServiceAccount", meta(sa, ns, o.Stack), nil))
		bindings = append(bindings, delegator(sa, ns, o.Stack))
	}
	objs = append(objs, obj("v1", "ServiceAccount", meta(stacks.UserAlice, ns, Shared), nil),
		obj("v1", "ServiceAccount", meta(stacks.UserBob, ns, Shared), nil))
	objs = append(objs, bindings...)
	return append(objs,
		obj("rbac.authorization.k8s.io/v1", "Role", meta(role, ns, o.Stack), Object{
			"rules": []Object{{"apiGroups": []string{""}, "resources": []string{"services/proxy"},
				"resourceNames": []string{stacks.EchoService}, "verbs": []string{"get"}}}}),
		obj("rbac.authorization.k8s.io/v1", "RoleBinding", meta(role, ns, o.Stack), Object{
			"roleRef": Object{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
			"subjects": []Object{{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": stacks.UserAlice},
				{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": stacks.GroupTokenPool},
				{"kind": "ServiceAccount", "name": stacks.UserAlice, "namespace": ns}}}))
}

// stack2x: http-echo with the oauth-proxy stand-in as its sidecar, the Route, and stacks.HAProxy
// playing the router that serves it.
func (o Options) stack2x() ([]Object, error) {
	objs, err := o.standinProxied(stacks.Echo2x, stacks.OAuthProxy, stacks.Echo2x, stacks.ModeOAuthProxy, o.echo(stacks.Echo2x))
	if err != nil {
		return nil, err
	}
	route := o.route()
	c := o.container(stacks.HAProxy, stacks.ProgramHAProxy, []string{"-db", "-f", "/etc/authbench/router/" + stacks.ConfigRouter},
		mount("router", "/etc/authbench/router"), mount("tls", tlsDir))
	vols := []Object{configVolume("router", stacks.HAProxy), secretVolume("tls", ServingSecret)}
	if o.runtimeAPI() {
		// HAProxy makes its runtime API's socket there, for the lab.
		c["volumeMounts"] = append(c["volumeMounts"].([]Object), Object{"name": "runtime", "mountPath": RouterRuntimeDir})
		vols = append(vols, Object{"name": "runtime", "hostPath": Object{"path": o.Lab.RuntimeDir, "type": "Directory"}})
	}
	return append(objs, route, o.routerConfig(route),
		o.deployment(stacks.HAProxy, "", []Object{o.ready(c, stacks.HAProxy)}, vols...),
		o.service(stacks.HAProxy, stacks.HAProxy, o.port(stacks.HAProxy))), nil
}

// RouterRuntimeDir is where the router's pod mounts Lab.RuntimeDir, and
// RouterSocket the name of its runtime API's socket there.
const (
	RouterRuntimeDir = "/run/authbench/router"
	RouterSocket     = "haproxy.sock"
)

// RouterBackend is the router's backend of the 2x stack's Route.
const RouterBackend = "route_" + stacks.Echo2x

func (o Options) runtimeAPI() bool { return o.Lab != nil && o.Lab.RuntimeDir != "" }

// stack3x: http-echo with kube-rbac-proxy, oauth2-proxy playing
// kube-auth-proxy (ext_authz), the HTTPRoute, and Envoy, the gateway.
func (o Options) stack3x() []Object {
	objs := o.echoWithProxy(stacks.Echo3x, stacks.KubeRBACProxy)
	objs = append(objs, o.oauth2Proxy()...)
	hr := o.httpRoute(stacks.Echo3x, stacks.KubeRBACProxy)
	return append(append(objs, hr), o.gatewayObjects(stacks.Envoy, hr)...)
}

// stack3xOAuth: http-echo with its kube-rbac-proxy sidecar; the ext_authz
// service, authbench's kube-auth-proxy stand-in (a TokenReview of the
// opaque token per request, no cache, no SubjectAccessReview) in front of
// authz-ok-oauth answering 200 (kube-auth-proxy's
// --upstream=static://200); the HTTPRoute; and Envoy, the gateway, whose
// ext_authz call goes over TLS.
func (o Options) stack3xOAuth() ([]Object, error) {
	objs := o.echoWithProxy(stacks.Echo3xOAuth, stacks.KubeRBACProxyOAuth)
	authz, err := o.standinProxied(stacks.KubeAuthProxyOAuth, stacks.KubeAuthProxyOAuth, stacks.AuthzOKOAuth, stacks.ModeKubeAuthProxy,
		o.textServer(stacks.AuthzOKOAuth, stacks.AuthzOKOAuth, stacks.AuthzOKText))
	if err != nil {
		return nil, err
	}
	objs = append(objs, authz...)
	hr := o.httpRoute(stacks.Echo3xOAuth, stacks.KubeRBACProxyOAuth)
	return append(append(objs, hr), o.gatewayObjects(stacks.EnvoyOAuth, hr)...), nil
}

func (o Options) oauth2Proxy() []Object {
	secret := obj("v1", "Secret", meta(stacks.OAuth2Proxy, o.namespace(), o.Stack), Object{"stringData": Object{
		"client-secret": o.OIDC.ClientSecret, "cookie-secret": o.OIDC.CookieSecret, "ca.crt": string(o.OIDC.CA)}})
	args := append([]string{"--http-address=" + o.listen(stacks.OAuth2Proxy), "--metrics-address=" + o.listen(stacks.PortOAuth2ProxyMetrics),
		"--provider=oidc", "--oidc-issuer-url=" + o.OIDC.IssuerURL, "--client-id=" + o.OIDC.ClientID,
		"--client-secret-file=/etc/authbench/oidc/client-secret",
		"--redirect-url=https://" + o.peer(stacks.Envoy, stacks.Envoy, false) + "/oauth2/callback"},
		stacks.OAuth2ProxyArgs...)
	if len(o.OIDC.CA) > 0 {
		args = append(args, "--provider-ca-file=/etc/authbench/oidc/ca.crt")
	}
	c := o.container(stacks.OAuth2Proxy, stacks.ProgramOAuth2Proxy, args, mount("oidc", "/etc/authbench/oidc"))
	// Through the environment from the Secret, so it is in no pod spec.
	c["env"] = []Object{{"name": stacks.OAuth2ProxyCookieEnv,
		"valueFrom": Object{"secretKeyRef": Object{"name": stacks.OAuth2Proxy, "key": "cookie-secret"}}}}
	return []Object{secret, o.deployment(stacks.OAuth2Proxy, "", []Object{o.ready(c, stacks.OAuth2Proxy)}, secretVolume("oidc", stacks.OAuth2Proxy)),
		o.service(stacks.OAuth2Proxy, stacks.OAuth2Proxy, o.port(stacks.OAuth2Proxy))}
}

// route is the 2x stack's OpenShift Route: re-encrypting to the oauth
// proxy's TLS port, as a route to an oauth-proxy sidecar does.
func (o Options) route() Object {
	return obj("route.openshift.io/v1", "Route", meta(stacks.Echo2x, o.namespace(), o.Stack), Object{"spec": Object{
		"to":   Object{"kind": "Service", "name": stacks.Echo2x, "weight": 100},
		"port": Object{"targetPort": "main"},
		"tls":  Object{"termination": "reencrypt", "insecureEdgeTerminationPolicy": "None"}}})
}

// httpRoute is a 3x stack's Gateway API HTTPRoute to the Service svc in
// front of its kube-rbac-proxy sidecar proxy.
func (o Options) httpRoute(svc, proxy string) Object {
	return obj("gateway.networking.k8s.io/v1", "HTTPRoute", meta(svc, o.namespace(), o.Stack), Object{"spec": Object{
		"parentRefs": []Object{{"name": "authbench-gateway"}},
		"rules": []Object{{"matches": []Object{{"path": Object{"type": "PathPrefix", "value": "/"}}},
			"backendRefs": []Object{{"name": svc, "port": o.port(proxy)}}}}}})
}

// ForDelete returns the stack's objects as `kube delete` needs them: their
// kinds, names and labels, which no setting changes, so placeholders stand
// in for the images, the certificate and the identity provider (a delete
// needs no OIDC settings).
func ForDelete(stack, namespace string) ([]Object, error) {
	return Build(Options{Stack: stack, Namespace: namespace, Images: map[string]string{},
		Serving: TLS{Cert: []byte("unused"), Key: []byte("unused")},
		OIDC:    OIDC{IssuerURL: "https://unused.invalid", ClientID: "unused"}})
}
