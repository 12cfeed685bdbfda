// Package stacks is the catalog of the lab's auth stacks, written once for
// every platform (the processes lab, the kube lab, `kube deploy`):
//
//	2x "Route + oauth-proxy":
//	  haproxy (an OpenShift Route) -> oauth-proxy (kube-rbac-proxy playing
//	  openshift/oauth-proxy: TokenReview + SAR) -> http-echo-2x
//	3x "Gateway + kube-auth-proxy + kube-rbac-proxy":
//	  envoy (the Gateway API gateway, HTTP ext_authz)
//	  -> oauth2-proxy (playing kube-auth-proxy, as ext_authz) ;
//	  envoy -> kube-rbac-proxy (TokenReview + SAR) -> http-echo-3x
//	3x-oauth "Gateway + kube-auth-proxy (OpenShift OAuth) + kube-rbac-proxy":
//	  envoy-oauth (ext_authz over TLS) -> kube-auth-proxy-oauth
//	  (kube-rbac-proxy playing kube-auth-proxy as ext_authz: TokenReview +
//	  SAR, in front of authz-ok-oauth answering 200) ; envoy-oauth ->
//	  kube-rbac-proxy-oauth -> http-echo-3x-oauth
//	shared: etcd, kube-apiserver (RBAC, static tokens playing OpenShift
//	  OAuth tokens, OIDC from Keycloak), Keycloak (3x's identity provider)
//
// It holds the names (stacks, components, programs, ports, roles, users),
// each component's record (Component: role, program, what it plays, its
// ports, its Deployment and container on a cluster), the configs as one
// template each (templates/, rendered with Render from typed parameters
// that carry the platforms' differences: listen and peer addresses, file
// or mounted-secret paths), the RBAC objects, the certificates, the
// secrets and the token pool. Adding a component is an entry here, which
// every platform renders.
package stacks
