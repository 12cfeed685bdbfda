package manifests

import (
	"fmt"
	"strconv"
)

// Object is one Kubernetes object, as its JSON fields.
type Object = map[string]any

// Stacks and component names, the same as the process lab's.
const (
	Stack2x = "2x"
	Stack3x = "3x"

	Echo2x        = "http-echo-2x"
	OAuthProxy    = "oauth-proxy"
	HAProxy       = "haproxy"
	Echo3x        = "http-echo-3x"
	KubeRBACProxy = "kube-rbac-proxy"
	OAuth2Proxy   = "oauth2-proxy"
	Nginx         = "nginx"

	// Stack3xOAuth is 3x with opaque OpenShift OAuth tokens: nginx-oauth
	// (Envoy) -> kube-auth-proxy-oauth (ext_authz: kube-rbac-proxy playing
	// kube-auth-proxy, TokenReview + SAR, in front of authz-ok-oauth, its
	// static 200) -> kube-rbac-proxy-oauth (sidecar) -> http-echo-3x-oauth.
	Stack3xOAuth       = "3x-oauth"
	NginxOAuth         = "nginx-oauth"
	KubeAuthProxyOAuth = "kube-auth-proxy-oauth"
	AuthzOKOAuth       = "authz-ok-oauth"
	KubeRBACProxyOAuth = "kube-rbac-proxy-oauth"
	Echo3xOAuth        = "http-echo-3x-oauth"
	// AuthzOKText is the ext_authz service's own answer (kube-auth-proxy's
	// --upstream=static://200), not the backend's, as on the process lab.
	AuthzOKText = "allowed by kube-auth-proxy"
	// PoolGroup is the group of the token pool's users (alice-1 ...
	// alice-N), bound like alice.
	PoolGroup = "authbench-pool"
	// The 3x-oauth proxies' API client rate: at client-go's default (5 QPS,
	// burst 10) a run of cache misses would measure client-go's throttle,
	// not the API server.
	KubeAPIQPS   = 1000
	KubeAPIBurst = 2000

	// EchoService is the object kube-rbac-proxy's SubjectAccessReview names.
	EchoService = "echo"
	EchoText    = "echo response"
	// DefaultNamespace is where the stacks go unless told otherwise.
	DefaultNamespace = "authbench"
	// ServingSecret holds the TLS certificate every TLS listener serves.
	ServingSecret = "authbench-serving"
	// LabelStack marks every object of a stack, for delete.
	LabelStack = "authbench.io/stack"
	// Shared is LabelStack's value on objects both stacks use (the serving
	// Secret, alice's and bob's ServiceAccounts): deleting one stack keeps them.
	Shared = "shared"
)

// meta returns metadata with the stack label.
func meta(name, ns, stack string) Object {
	m := Object{"name": name, "labels": Object{LabelStack: stack, "app.kubernetes.io/part-of": "authbench"}}
	if ns != "" {
		m["namespace"] = ns
	}
	return m
}

func obj(apiVersion, kind string, md Object, rest Object) Object {
	o := Object{"apiVersion": apiVersion, "kind": kind, "metadata": md}
	for k, v := range rest {
		o[k] = v
	}
	return o
}

// Name, Kind, Namespace and APIVersion of o.
func Name(o Object) string       { return str(o["metadata"].(Object)["name"]) }
func Namespace(o Object) string  { return str(o["metadata"].(Object)["namespace"]) }
func Kind(o Object) string       { return str(o["kind"]) }
func APIVersion(o Object) string { return str(o["apiVersion"]) }

func str(v any) string {
	s, _ := v.(string)
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

// Ports are the listening ports of the components; in the lab they are
// free 127.0.0.1 ports, on a cluster the container ports below.
type Ports map[string]int

// defaultPorts are the container ports on a user's cluster.
var defaultPorts = Ports{Echo2x: 5678, OAuthProxy: 8443, HAProxy: 8443, Echo3x: 5678, KubeRBACProxy: 8443,
	OAuth2Proxy: 4180, OAuth2Proxy + "-metrics": 9100, Nginx: 8443, Nginx + "-deny": 8444,
	Echo3xOAuth: 5678, KubeRBACProxyOAuth: 8443, AuthzOKOAuth: 5678, KubeAuthProxyOAuth: 8443,
	NginxOAuth: 8443, NginxOAuth + "-deny": 8444}

func (o Options) port(name string) int {
	if p, ok := o.Lab.portOf(name); ok {
		return p
	}
	return defaultPorts[name]
}

// listen is the address a container binds: 127.0.0.1 on the lab's host
// network, every interface of the pod's own network namespace otherwise.
func (o Options) listen(name string) string {
	host := "0.0.0.0"
	if o.Lab != nil {
		host = "127.0.0.1"
	}
	return fmt.Sprintf("%s:%d", host, o.port(name))
}

// peer is how one component reaches another: a loopback port in the lab,
// the pod's localhost for a sidecar, a Service's DNS name otherwise.
func (o Options) peer(service, component string, sidecar bool) string {
	switch {
	case o.Lab != nil || sidecar:
		return fmt.Sprintf("127.0.0.1:%d", o.port(component))
	default:
		return fmt.Sprintf("%s.%s.svc:%d", service, o.namespace(), o.port(component))
	}
}

// IsShared says whether o is used by both stacks (or is their Namespace).
func IsShared(o Object) bool {
	if Kind(o) == "Namespace" {
		return true
	}
	labels, _ := o["metadata"].(Object)["labels"].(Object)
	return str(labels[LabelStack]) == Shared
}

// workloads maps each component to the Deployment and container running it.
var workloads = map[string][2]string{
	Echo2x: {Echo2x, "http-echo"}, OAuthProxy: {Echo2x, OAuthProxy}, HAProxy: {HAProxy, HAProxy},
	Echo3x: {Echo3x, "http-echo"}, KubeRBACProxy: {Echo3x, KubeRBACProxy},
	OAuth2Proxy: {OAuth2Proxy, OAuth2Proxy}, Nginx: {Nginx, Nginx}, Prometheus: {Prometheus, Prometheus},
	Echo3xOAuth: {Echo3xOAuth, "http-echo"}, KubeRBACProxyOAuth: {Echo3xOAuth, KubeRBACProxyOAuth},
	KubeAuthProxyOAuth: {KubeAuthProxyOAuth, KubeAuthProxyOAuth}, AuthzOKOAuth: {KubeAuthProxyOAuth, AuthzOKOAuth},
	NginxOAuth: {NginxOAuth, NginxOAuth},
}

// stackComponents are each stack's components, from the client inwards.
var stackComponents = map[string][]string{
	Stack2x:      {HAProxy, OAuthProxy, Echo2x},
	Stack3x:      {Nginx, OAuth2Proxy, KubeRBACProxy, Echo3x},
	Stack3xOAuth: {NginxOAuth, KubeAuthProxyOAuth, AuthzOKOAuth, KubeRBACProxyOAuth, Echo3xOAuth},
}

// Components lists a stack's components (the names Workload knows).
func Components(stack string) []string { return append([]string(nil), stackComponents[stack]...) }

// Workload returns the Deployment and container that run a component
// (the names `lab limit` and the cAdvisor samples use).
func Workload(component string) (deployment, container string, ok bool) {
	w, ok := workloads[component]
	return w[0], w[1], ok
}
