package lab

import (
	"context"
	"fmt"
	"net/http"
	"os"
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
			CompKubeRBACProxy, CompOAuth2Proxy, CompNginx, "nginx-deny")
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

func (b *builder) etcd() (*spec, error) {
	bin, err := lookupProgram("etcd", "etcd-server")
	if err != nil {
		return nil, err
	}
	data := b.path("data", "etcd")
	peer := b.url("http", "etcd-peer", "")
	client := b.url("http", CompEtcd, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompEtcd, Stack: StackShared, Role: "kube-storage",
			Program: "etcd", Version: programVersion(bin, "--version"), URL: client},
		argv: []string{bin, "--name", "authbench", "--data-dir", data,
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", "authbench=" + peer, "--initial-cluster-state", "new",
			"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn"},
		ports: []string{CompEtcd, "etcd-peer"},
		// A fresh store each start: the RBAC objects are recreated anyway,
		// and the peer URL may have changed.
		prepare: func() error { return os.RemoveAll(data) },
		ready: func(ctx context.Context) error {
			return probe(ctx, b.client, client+"/health", "", `"health":"true"`, 200)
		},
	}, nil
}

func (b *builder) apiserver() (*spec, error) {
	bin, err := lookupTool("kube-apiserver")
	if err != nil {
		return nil, err
	}
	audit := b.path("logs", "kube-apiserver-audit.log")
	argv := []string{bin,
		"--etcd-servers=" + b.url("http", CompEtcd, ""),
		"--bind-address=" + loopback, "--advertise-address=" + loopback,
		"--secure-port=" + strconv.Itoa(b.ports[CompAPIServer]),
		"--cert-dir=" + b.path("data", "kube-apiserver"),
		"--tls-cert-file=" + b.certs.Server, "--tls-private-key-file=" + b.certs.ServerKey,
		"--client-ca-file=" + b.certs.CA,
		"--authorization-mode=RBAC",
		"--token-auth-file=" + b.secrets.TokenAuthFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + b.certs.SAPub,
		"--service-account-signing-key-file=" + b.certs.SAKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--audit-policy-file=" + confPath(b.dir, "audit-policy.yaml"),
		"--audit-log-path=" + audit,
		"--audit-log-maxsize=100", "--audit-log-maxbackup=1",
		"--profiling=false",
	}
	if b.cfg.has(Stack3x) {
		argv = append(argv,
			"--oidc-issuer-url="+b.issuerURL(),
			"--oidc-client-id="+OIDCClientID,
			"--oidc-username-claim=preferred_username",
			"--oidc-username-prefix=-",
			"--oidc-ca-file="+b.certs.CA)
	}
	api := b.url("https", CompAPIServer, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompAPIServer, Stack: StackShared,
			Role: "kube-apiserver", Plays: "the OpenShift API server and OAuth token authority",
			Program: "kube-apiserver", Version: versionFromToolPath("kube-apiserver", bin), URL: api},
		argv:  argv,
		ports: []string{CompAPIServer},
		after: []string{CompEtcd},
		prepare: func() error {
			_ = os.Remove(audit)
			return renderTo(confPath(b.dir, "audit-policy.yaml"), "audit-policy.yaml", b.data())
		},
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, api+"/readyz", b.adminToken(), "", 200)
		},
		setup: func(ctx context.Context) error { return applyRBAC(ctx, b.client, api, b.adminToken()) },
	}, nil
}

func (b *builder) echo(name, stack string) func() (*spec, error) {
	return func() (*spec, error) {
		bin, err := lookupTool("http-echo")
		if err != nil {
			return nil, err
		}
		u := b.url("http", name, "")
		return &spec{
			ComponentInfo: ComponentInfo{Name: name, Stack: stack, Role: "backend",
				Program: "http-echo", Version: versionFromToolPath("http-echo", bin), URL: u + EchoPath},
			argv:  []string{bin, "-listen=" + b.addr(name), "-text=" + EchoText},
			ports: []string{name},
			ready: func(ctx context.Context) error { return probe(ctx, b.client, u+"/health", "", "ok", 200) },
		}, nil
	}
}

// rbacProxy is kube-rbac-proxy in front of a backend: TokenReview and
// SubjectAccessReview against the kube-apiserver, with its caches.
func (b *builder) rbacProxy(name, stack, identity, backend string) (*spec, error) {
	bin, err := lookupTool("kube-rbac-proxy")
	if err != nil {
		return nil, err
	}
	kubeconfig := b.path("kubeconfig", identity+".kubeconfig")
	config := confPath(b.dir, name+".yaml")
	u := b.url("https", name, "")
	return &spec{
		ComponentInfo: ComponentInfo{Program: "kube-rbac-proxy", Name: name, Stack: stack,
			Version: versionFromToolPath("kube-rbac-proxy", bin), URL: u + EchoPath},
		argv: []string{bin,
			"--secure-listen-address=" + b.addr(name),
			"--upstream=" + b.url("http", backend, "/"),
			"--tls-cert-file=" + b.certs.Server, "--tls-private-key-file=" + b.certs.ServerKey,
			"--kubeconfig=" + kubeconfig,
			"--config-file=" + config,
			"--v=0"},
		ports: []string{name},
		after: []string{CompAPIServer, backend},
		prepare: func() error {
			d := b.data()
			d.User, d.TokenFile = identity, b.secrets.TokenFile(identity)
			if err := renderTo(kubeconfig, "kubeconfig", d); err != nil {
				return err
			}
			return renderTo(config, "kube-rbac-proxy.yaml", b.data())
		},
		// The admin may read the echo service: a 200 proves TokenReview,
		// SAR and the upstream all work.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u+EchoPath, b.adminToken(), EchoText, 200)
		},
	}, nil
}

func (b *builder) oauthProxy() (*spec, error) {
	s, err := b.rbacProxy(CompOAuthProxy, Stack2x, "oauth-proxy", CompEcho2x)
	if err != nil {
		return nil, err
	}
	s.Role = "oauth-proxy"
	s.Plays = "openshift/oauth-proxy (TokenReview + SubjectAccessReview with caching)"
	return s, nil
}

func (b *builder) kubeRBACProxy() (*spec, error) {
	s, err := b.rbacProxy(CompKubeRBACProxy, Stack3x, "kube-rbac-proxy", CompEcho3x)
	if err != nil {
		return nil, err
	}
	s.Role = "rbac-proxy"
	return s, nil
}

func (b *builder) haproxy() (*spec, error) {
	bin, err := lookupProgram("haproxy", "haproxy")
	if err != nil {
		return nil, err
	}
	cfg := confPath(b.dir, "haproxy.cfg")
	u := b.url("https", CompHAProxy, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompHAProxy, Stack: Stack2x, Role: "route",
			Program: "haproxy", Plays: "an OpenShift Route (router HAProxy, edge TLS termination)",
			Version: programVersion(bin, "-v"), URL: u + EchoPath},
		argv:    []string{bin, "-db", "-f", cfg},
		ports:   []string{CompHAProxy},
		after:   []string{CompOAuthProxy},
		prepare: func() error { return renderTo(cfg, "haproxy.cfg", b.data()) },
		// Alice through the whole stack: route, TokenReview, SAR, backend.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u+EchoPath, b.secrets.TokenFile(UserAlice), EchoText, 200)
		},
	}, nil
}

func (b *builder) nginx() (*spec, error) {
	bin, err := lookupProgram("nginx", "nginx")
	if err != nil {
		return nil, err
	}
	cfg := confPath(b.dir, "nginx.conf")
	prefix := b.path("data", "nginx")
	u := b.url("https", CompNginx, "")
	return &spec{
		ComponentInfo: ComponentInfo{Name: CompNginx, Stack: Stack3x, Role: "gateway",
			Program: "nginx", Plays: "Envoy (Gateway API gateway with HTTP ext_authz)",
			Version: programVersion(bin, "-v"), URL: u + EchoPath},
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

func (b *builder) oauth2Proxy() (*spec, error) {
	bin, err := lookupTool("oauth2-proxy")
	if err != nil {
		return nil, err
	}
	u := b.url("http", CompOAuth2Proxy, "")
	s := &spec{
		ComponentInfo: ComponentInfo{Name: CompOAuth2Proxy, Stack: Stack3x, Role: "ext-authz",
			Program: "oauth2-proxy", Plays: "kube-auth-proxy (its upstream; OIDC JWT verification as ext_authz)",
			Version: versionFromToolPath("oauth2-proxy", bin), URL: u + EchoPath},
		argv: []string{bin,
			"--http-address=" + b.addr(CompOAuth2Proxy),
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
		ports: []string{CompOAuth2Proxy},
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
