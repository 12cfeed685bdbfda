package stacks

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Stack names.
const (
	Stack2x = "2x" // Route + oauth-proxy
	Stack3x = "3x" // Gateway + kube-auth-proxy + kube-rbac-proxy
	// Stack3xOAuth is 3x as the migration reports ran it: OpenShift OAuth
	// tokens, validated by the ext_authz service through TokenReview.
	Stack3xOAuth = "3x-oauth"
	// Shared marks components every stack uses (etcd, the kube-apiserver)
	// and, on a cluster, the objects they share.
	Shared = "shared"
	// All selects every stack.
	All = "all"
)

// Programs: the real software the components run. They are also the
// names of the tools in the tool cache and of the kube lab's images.
const (
	ProgramEtcd          = "etcd"
	ProgramAPIServer     = "kube-apiserver"
	ProgramKeycloak      = "keycloak"
	ProgramHTTPEcho      = "http-echo"
	ProgramKubeRBACProxy = "kube-rbac-proxy"
	ProgramOAuth2Proxy   = "oauth2-proxy"
	ProgramEnvoy         = "envoy"
	ProgramHAProxy       = "haproxy"
	// ProgramToxiproxy is Shopify's Toxiproxy server, the lab's fault proxy.
	ProgramToxiproxy = "toxiproxy-server"
)

// Component names: what `--limit`, the sampler, the state and the reports
// call each component, on every platform.
const (
	Etcd      = ProgramEtcd
	APIServer = ProgramAPIServer
	Keycloak  = ProgramKeycloak

	Echo2x     = "http-echo-2x"
	OAuthProxy = "oauth-proxy"
	HAProxy    = ProgramHAProxy

	Echo3x        = "http-echo-3x"
	KubeRBACProxy = ProgramKubeRBACProxy
	OAuth2Proxy   = ProgramOAuth2Proxy
	// Envoy is stack 3x's Gateway API gateway.
	Envoy = ProgramEnvoy
	// Toxiproxy is the lab's fault proxy (shared): it sits on the links
	// `lab fault` disturbs.
	Toxiproxy = "toxiproxy"

	// Stack 3x-oauth's components; names distinct from 3x's so that both
	// stacks run side by side and --limit can tell them apart.
	EnvoyOAuth         = "envoy-oauth"
	KubeAuthProxyOAuth = "kube-auth-proxy-oauth"
	AuthzOKOAuth       = "authz-ok-oauth"
	KubeRBACProxyOAuth = "kube-rbac-proxy-oauth"
	Echo3xOAuth        = "http-echo-3x-oauth"
)

// Port names besides the components' own (a component's main port is
// named as the component).
const (
	PortEtcdPeer = Etcd + "-peer"
	// PortOAuth2ProxyMetrics names, in the lab state's ports, where
	// oauth2-proxy serves /metrics, its Go process metrics among them
	// (what a Prometheus sampler with observe.ProcessProfile reads).
	PortOAuth2ProxyMetrics = OAuth2Proxy + "-metrics"
	// PortHAProxyMetrics names, in the lab state's ports, where the 2x
	// router's HAProxy serves its Prometheus exporter's /metrics.
	PortHAProxyMetrics = HAProxy + "-metrics"
	// PortEnvoyAdmin and PortEnvoyOAuthAdmin name, in the lab state's
	// ports, where each gateway's Envoy serves its admin interface
	// (/stats/prometheus) on 127.0.0.1; EnvoyAdminPort finds it by gateway.
	PortEnvoyAdmin      = Envoy + adminSuffix
	PortEnvoyOAuthAdmin = EnvoyOAuth + adminSuffix
)

const adminSuffix = "-admin"

// EnvoyAdminPort names the port of a gateway's admin interface ("" when
// the component is no Envoy).
func EnvoyAdminPort(component string) string {
	c, ok := Lookup(component)
	if !ok || c.Program != ProgramEnvoy {
		return ""
	}
	return component + adminSuffix
}

// Roles: what a component does in the architecture.
const (
	RoleRoute        = "route"
	RoleOAuthProxy   = "oauth-proxy"
	RoleGateway      = "gateway"
	RoleExtAuthz     = "ext-authz"
	RoleRBACProxy    = "rbac-proxy"
	RoleBackend      = "backend"
	RoleKubeStorage  = "kube-storage"
	RoleAPIServer    = "kube-apiserver"
	RoleOIDCProvider = "oidc-provider"
	// RoleAuthzUpstream is the ext_authz service's own upstream: a
	// component, not a layer of its stack's target.
	RoleAuthzUpstream = "authz-upstream"
	// RoleFaultProxy is the fault proxy on the lab's links: no layer of
	// any target.
	RoleFaultProxy = "fault-proxy"
)

// Names the RBAC objects, the proxies' configs and the scenario share.
const (
	// Namespace is the lab's namespace and a cluster's default one.
	Namespace = "authbench"
	// EchoService is the object kube-rbac-proxy's SubjectAccessReview names.
	EchoService = "echo"
	// EchoPath is the path the scenario requests on every layer.
	EchoPath = "/echo"
	// EchoText is http-echo's answer.
	EchoText = "echo response"
	// AuthzOKText is the ext_authz service's own answer (kube-auth-proxy's
	// --upstream=static://200): not the backend's, so that a ladder tells
	// the ext_authz rung from a proxy by its body.
	AuthzOKText = "allowed by kube-auth-proxy"
)

// The client-side rate limit of the 3x-oauth proxies' API clients. Left at
// client-go's default (5 QPS, burst 10), a run of cache misses would
// measure client-go's throttle, not the API server.
const (
	KubeAPIQPS   = 1000
	KubeAPIBurst = 2000
)

// KubeRBACProxyCache says how kube-rbac-proxy v0.19.1 caches: the values
// are compiled in (pkg/authn/delegating.go, pkg/authz/auth.go and
// k8s.io/apiserver's token cache and webhook authorizer); no flag turns the
// caches off or resizes them, so the lab defeats them with distinct tokens
// (--token-pool) instead.
const KubeRBACProxyCache = "TokenReview results cached 2m per token (unbounded, concurrent misses of one token coalesced); " +
	"SubjectAccessReview decisions in an LRU of 8192, allow 5m / deny 30s; no flag turns either off"

// Names returns the stacks a lab can run, in order: the names --stack
// accepts besides All.
func Names() []string { return []string{Stack2x, Stack3x, Stack3xOAuth} }

// Parse reads stack names (each may be a comma-separated list, and All
// means every stack) into the sorted set they select.
func Parse(values []string) ([]string, error) {
	known := Names()
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(strings.ToLower(part))
			switch {
			case part == All:
				for _, k := range known {
					add(k)
				}
			case slices.Contains(known, part):
				add(part)
			default:
				return nil, fmt.Errorf("unknown stack %q: want %s or %s", part, strings.Join(known, ", "), All)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
