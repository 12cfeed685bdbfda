package stacks

// Component is one component of a stack as every platform runs it: its
// name, what it does and which real program plays what.
type Component struct {
	Name  string
	Stack string
	Role  string
	// Program is the real software; Plays what it stands in for, when it
	// stands in for something (kube-rbac-proxy plays kube-auth-proxy).
	Program string
	Plays   string
	// Scheme is its own entry point's scheme.
	Scheme string
	// Ports are the names of the ports it listens on, its own first, with
	// the port each listens on in a pod of a user's cluster.
	Ports []Port
	// Deployment and Container run it on a cluster (a sidecar's
	// Deployment is its backend's). Empty for the components no cluster
	// runs (etcd, the kube-apiserver, Keycloak).
	Deployment, Container string
	// RenderedFrom is the routing object its config is rendered from on
	// a cluster (Route, HTTPRoute), if any.
	RenderedFrom string
}

// Port is a named listening port and its port in a pod of a user's cluster.
type Port struct {
	Name string
	Pod  int
}

// Container ports on a user's cluster.
const (
	podPortEcho = 5678
	podPortTLS  = 8443
	// podPortAdmin is Envoy's admin port in Istio's gateways.
	podPortAdmin   = 15000
	podPortOAuth2  = 4180
	podPortMetrics = 9100
)

// Target names in the lab's scenario.
const (
	Target2x      = "lab-2x"
	Target3x      = "lab-3x"
	Target3xOAuth = "lab-3x-oauth"
)

// Stack is one stack: its target in the lab's scenario, its title, and its
// components from the client inwards.
type Stack struct {
	Name, Target, Title string
	Components          []Component
}

func echo(name, stack string) Component {
	return Component{Name: name, Stack: stack, Role: RoleBackend, Program: ProgramHTTPEcho, Scheme: "http",
		Ports: []Port{{name, podPortEcho}}, Deployment: name, Container: ProgramHTTPEcho}
}

func rbacProxy(name, stack, role, backend string) Component {
	return Component{Name: name, Stack: stack, Role: role, Program: ProgramKubeRBACProxy, Scheme: "https",
		Ports: []Port{{name, podPortTLS}}, Deployment: backend, Container: name}
}

// gateway is Envoy as a Gateway API gateway: no stand-in, so Plays says
// only what configures it.
func gateway(name, stack, admin, plays string) Component {
	return Component{Name: name, Stack: stack, Role: RoleGateway, Program: ProgramEnvoy, Scheme: "https",
		Plays: plays, Ports: []Port{{name, podPortTLS}, {admin, podPortAdmin}},
		Deployment: name, Container: name, RenderedFrom: "HTTPRoute"}
}

// standin is one of authbench's own stand-ins (ProgramStandin) in front of
// a backend, serving TLS on the port named as the component; a sidecar of
// deployment's pod.
func standin(name, stack, role, deployment, plays string) Component {
	return Component{Name: name, Stack: stack, Role: role, Program: ProgramStandin, Scheme: "https", Plays: plays,
		Ports: []Port{{name, podPortTLS}}, Deployment: deployment, Container: name}
}

// kubeAuthProxyOAuthPlays is what the stand-in plays as 3x-oauth's
// ext_authz service.
const kubeAuthProxyOAuthPlays = "kube-auth-proxy (OpenShift mode with --enable-k8s-token-validation, ext_authz: " +
	"one TokenReview per bearer request, no cache, no SubjectAccessReview; client-go's 5 QPS, burst 10)"

var catalog = []Stack{
	{Name: Stack2x, Target: Target2x, Title: "2x, Route + oauth-proxy", Components: []Component{
		{Name: HAProxy, Stack: Stack2x, Role: RoleRoute, Program: ProgramHAProxy, Scheme: "https",
			Plays: "an OpenShift Route (router HAProxy, edge TLS termination)",
			Ports: []Port{{HAProxy, podPortTLS}, {PortHAProxyMetrics, podPortMetrics}}, Deployment: HAProxy, Container: HAProxy, RenderedFrom: "Route"},
		standin(OAuthProxy, Stack2x, RoleOAuthProxy, Echo2x,
			"openshift/oauth-proxy (TokenReview + SubjectAccessReview, cached; 200 QPS, burst 400; 403 login page)"),
		echo(Echo2x, Stack2x),
	}},
	{Name: Stack3x, Target: Target3x, Title: "3x, Gateway + kube-auth-proxy + kube-rbac-proxy", Components: []Component{
		gateway(Envoy, Stack3x, PortEnvoyAdmin, "the Gateway API gateway (Envoy with HTTP ext_authz, configured as the OpenShift AI gateway's EnvoyFilter)"),
		{Name: OAuth2Proxy, Stack: Stack3x, Role: RoleExtAuthz, Program: ProgramOAuth2Proxy, Scheme: "http",
			Plays:      "kube-auth-proxy (its upstream; OIDC JWT verification as ext_authz)",
			Ports:      []Port{{OAuth2Proxy, podPortOAuth2}, {PortOAuth2ProxyMetrics, podPortMetrics}},
			Deployment: OAuth2Proxy, Container: OAuth2Proxy},
		rbacProxy(KubeRBACProxy, Stack3x, RoleRBACProxy, Echo3x),
		echo(Echo3x, Stack3x),
	}},
	{Name: Stack3xOAuth, Target: Target3xOAuth,
		Title: "3x-oauth, Gateway + kube-auth-proxy (OpenShift OAuth tokens, TokenReview) + kube-rbac-proxy", Components: []Component{
			gateway(EnvoyOAuth, Stack3xOAuth, PortEnvoyOAuthAdmin, "the Gateway API gateway (Envoy with HTTP ext_authz to kube-auth-proxy over TLS, configured as the OpenShift AI gateway's EnvoyFilter)"),
			standin(KubeAuthProxyOAuth, Stack3xOAuth, RoleExtAuthz, KubeAuthProxyOAuth, kubeAuthProxyOAuthPlays),
			func() Component {
				c := echo(AuthzOKOAuth, Stack3xOAuth)
				c.Role, c.Deployment, c.Container = RoleAuthzUpstream, KubeAuthProxyOAuth, AuthzOKOAuth
				c.Plays = "kube-auth-proxy's --upstream=static://200 (a 200 for every request the ext_authz service lets through)"
				return c
			}(),
			rbacProxy(KubeRBACProxyOAuth, Stack3xOAuth, RoleRBACProxy, Echo3xOAuth),
			echo(Echo3xOAuth, Stack3xOAuth),
		}},
}

// The shared components, which every stack needs and no cluster runs as a
// pod: etcd, the kube-apiserver, and Keycloak (3x's identity provider).
var (
	EtcdComponent = Component{Name: Etcd, Stack: Shared, Role: RoleKubeStorage, Program: ProgramEtcd, Scheme: "http",
		Ports: []Port{{Etcd, 0}, {PortEtcdPeer, 0}}}
	APIServerComponent = Component{Name: APIServer, Stack: Shared, Role: RoleAPIServer, Program: ProgramAPIServer,
		Scheme: "https", Plays: "the OpenShift API server and OAuth token authority", Ports: []Port{{APIServer, 0}}}
	KeycloakComponent = Component{Name: Keycloak, Stack: Stack3x, Role: RoleOIDCProvider, Program: ProgramKeycloak,
		Scheme: "https", Ports: []Port{{Keycloak, 0}}}
)

// Get returns the named stack.
func Get(name string) (Stack, bool) {
	for _, s := range catalog {
		if s.Name == name {
			return s, true
		}
	}
	return Stack{}, false
}

// Components lists a stack's components from the client inwards (none for
// an unknown stack).
func Components(stack string) []Component {
	s, _ := Get(stack)
	return append([]Component(nil), s.Components...)
}

// EntryPoint is the component a stack's client connects to: its outer
// layer, where a client link's fault proxy goes in front.
func EntryPoint(stack string) string {
	s, _ := Get(stack)
	return s.Layers()[0]
}

// Layers are a stack's layers from the client inwards: its components but
// the ext_authz service's own upstream, which is no layer of the target.
func (s Stack) Layers() []string {
	var out []string
	for _, c := range s.Components {
		if c.Role != RoleAuthzUpstream {
			out = append(out, c.Name)
		}
	}
	return out
}

// PortNames lists the names of the ports a stack's components listen on,
// from the backend outwards.
func PortNames(stack string) []string {
	var out []string
	cs := Components(stack)
	for i := len(cs) - 1; i >= 0; i-- {
		for _, p := range cs[i].Ports {
			out = append(out, p.Name)
		}
	}
	return out
}

// PodPort is the port a named port listens on in a pod of a user's
// cluster (0 for an unknown name).
func PodPort(name string) int {
	for _, s := range catalog {
		for _, c := range s.Components {
			for _, p := range c.Ports {
				if p.Name == name {
					return p.Pod
				}
			}
		}
	}
	return 0
}

// Lookup returns the component of any stack, a shared one, or a replica
// of a scalable component (see ReplicaName), by name.
func Lookup(name string) (Component, bool) {
	if c, ok := lookupCatalog(name); ok {
		return c, true
	}
	for _, c := range []Component{EtcdComponent, APIServerComponent, KeycloakComponent, ToxiproxyComponent} {
		if c.Name == name {
			return c, true
		}
	}
	return replicaComponent(name)
}

// lookupCatalog returns a stack's own component by name.
func lookupCatalog(name string) (Component, bool) {
	for _, s := range catalog {
		for _, c := range s.Components {
			if c.Name == name {
				return c, true
			}
		}
	}
	return Component{}, false
}

// TargetName is a stack's target in the lab's scenario ("" for an unknown
// stack).
func TargetName(stack string) string {
	s, _ := Get(stack)
	return s.Target
}

// Title describes a stack for people ("3x, Gateway + ...").
func Title(stack string) string {
	s, _ := Get(stack)
	return s.Title
}

// ByRole returns the stack's first component playing role: its gateway's
// ext_authz service (RoleExtAuthz) and route backend (RoleRBACProxy).
func (s Stack) ByRole(role string) (Component, bool) {
	for _, c := range s.Components {
		if c.Role == role {
			return c, true
		}
	}
	return Component{}, false
}
