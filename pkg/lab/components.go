package lab

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
)

// Component names. They are also the names `--limit` and the sampler use.
const (
	CompEtcd          = "etcd"
	CompAPIServer     = "kube-apiserver"
	CompKeycloak      = "keycloak"
	CompEcho2x        = "http-echo-2x"
	CompOAuthProxy    = "oauth-proxy"
	CompHAProxy       = "haproxy"
	CompEcho3x        = "http-echo-3x"
	CompKubeRBACProxy = "kube-rbac-proxy"
	CompOAuth2Proxy   = "oauth2-proxy"
	CompNginx         = "nginx"
	// Stack 3x-oauth's components; names distinct from 3x's so that both
	// stacks run side by side and --limit can tell them apart.
	CompNginxOAuth         = "nginx-oauth"
	CompKubeAuthProxyOAuth = "kube-auth-proxy-oauth"
	CompAuthzOKOAuth       = "authz-ok-oauth"
	CompKubeRBACProxyOAuth = "kube-rbac-proxy-oauth"
	CompEcho3xOAuth        = "http-echo-3x-oauth"
)

// Names the RBAC objects and the kube-rbac-proxy config share.
const (
	Namespace   = "authbench"
	EchoService = "echo"
	// EchoPath is the path the scenario requests on every layer.
	EchoPath = "/echo"
	// EchoText is http-echo's answer.
	EchoText = "echo response"
)

// spec is one component: how to start it, when it is ready, and what must
// be ready before it.
type spec struct {
	ComponentInfo
	argv []string
	env  []string
	// exactEnv makes env the whole environment instead of an addition.
	exactEnv bool
	// ports are the port names it binds, checked free just before start.
	ports []string
	after []string
	// prepare renders configs and resets data just before start.
	prepare func() error
	// ready is a real request that succeeds once the component serves.
	ready func(ctx context.Context) error
	// setup runs once after ready (RBAC objects, Keycloak realm); the
	// component's dependents wait for it.
	setup func(ctx context.Context) error
	// limit is the component's cgroup limit (zero: none).
	limit Limit
}

// builder turns a Config and the lab's files into specs.
type builder struct {
	dir     string
	cfg     Config
	ports   map[string]int
	certs   Certs
	secrets Secrets
	client  *http.Client
}

// portNames lists the ports a config needs.
func portNames(c Config) []string {
	names := []string{CompEtcd, "etcd-peer", CompAPIServer}
	if c.has(Stack2x) {
		names = append(names, CompEcho2x, CompOAuthProxy, CompHAProxy)
	}
	if c.has(Stack3x) {
		names = append(names, CompKeycloak, CompEcho3x,
			CompKubeRBACProxy, CompOAuth2Proxy, PortOAuth2ProxyMetrics, CompNginx, "nginx-deny")
	}
	if c.has(Stack3xOAuth) {
		names = append(names, CompEcho3xOAuth, CompKubeRBACProxyOAuth, CompAuthzOKOAuth,
			CompKubeAuthProxyOAuth, CompNginxOAuth, portNginxOAuthDeny)
	}
	return names
}

func (b *builder) addr(name string) string {
	return loopback + ":" + strconv.Itoa(b.ports[name])
}

func (b *builder) url(scheme, name, path string) string {
	return scheme + "://" + b.addr(name) + path
}

func (b *builder) path(parts ...string) string {
	return filepath.Join(append([]string{b.dir}, parts...)...)
}

func (b *builder) data() renderData {
	return renderData{Dir: b.dir, Host: loopback, Ports: b.ports, Certs: b.certs,
		Namespace: Namespace, EchoService: EchoService}
}

func (b *builder) adminToken() string { return b.secrets.TokenFile(UserAdmin) }

// specs builds every component of the configured stacks.
func (b *builder) specs() ([]*spec, error) {
	makers := []func() (*spec, error){b.etcd, b.apiserver}
	if b.cfg.has(Stack2x) {
		makers = append(makers, b.echo(CompEcho2x, Stack2x), b.oauthProxy, b.haproxy)
	}
	if b.cfg.has(Stack3x) {
		makers = append(makers, b.keycloak, b.echo(CompEcho3x, Stack3x), b.kubeRBACProxy,
			b.oauth2Proxy, b.nginx)
	}
	if b.cfg.has(Stack3xOAuth) {
		makers = append(makers, b.echo(CompEcho3xOAuth, Stack3xOAuth), b.kubeRBACProxyOAuth,
			b.authzOK, b.kubeAuthProxyOAuth, b.nginxOAuth)
	}
	var out []*spec
	for _, m := range makers {
		s, err := m()
		if err != nil {
			return nil, err
		}
		s.Log = b.path("logs", s.Name+".log")
		out = append(out, s)
	}
	return out, nil
}
