package processes

import (
	"context"

	"github.com/authbench/authbench/pkg/stacks"
)

// Stack 2x, "Route + oauth-proxy", and the backends and RBAC proxies.

// echo is http-echo, one stack's backend.
func (b *builder) echo(name string) func() (*spec, error) {
	return func() (*spec, error) {
		bin, err := lookupTool(stacks.ProgramHTTPEcho)
		if err != nil {
			return nil, err
		}
		u := b.url("http", name, "")
		return &spec{
			ComponentInfo: b.info(name, bin),
			argv:          []string{bin, "-listen=" + b.addr(name), "-text=" + stacks.EchoText},
			ports:         portsOf(name),
			ready:         func(ctx context.Context) error { return probe(ctx, b.client, u+"/health", "", "ok", 200) },
		}, nil
	}
}

// rbacProxy is kube-rbac-proxy in front of a backend: TokenReview and
// SubjectAccessReview against the kube-apiserver, with its caches. It runs
// as the identity named as the component.
func (b *builder) rbacProxy(name, backend string) (*spec, error) {
	bin, err := lookupTool(stacks.ProgramKubeRBACProxy)
	if err != nil {
		return nil, err
	}
	kubeconfig := b.path("kubeconfig", name+".kubeconfig")
	config := stacks.ConfPath(b.dir, name+".yaml")
	u := b.url("https", name, "")
	return &spec{
		ComponentInfo: b.info(name, bin),
		argv: []string{bin,
			"--secure-listen-address=" + b.addr(name),
			"--upstream=" + b.url("http", backend, "/"),
			"--tls-cert-file=" + b.certs.Server, "--tls-private-key-file=" + b.certs.ServerKey,
			"--kubeconfig=" + kubeconfig,
			"--config-file=" + config,
			"--v=0"},
		ports: portsOf(name),
		after: []string{stacks.APIServer, stacks.Toxiproxy, backend},
		prepare: func() error {
			if err := stacks.RenderTo(kubeconfig, stacks.ConfigKubeconfig, b.kubeconfig(name)); err != nil {
				return err
			}
			return stacks.RenderTo(config, stacks.ConfigRBACProxy, rbacAuthz)
		},
		// The admin may read the echo service: a 200 proves TokenReview,
		// SAR and the upstream all work.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u+stacks.EchoPath, b.adminToken(), stacks.EchoText, 200)
		},
	}, nil
}

// rbacAuthz is the lab's kube-rbac-proxy authorization: the echo service
// in the lab's namespace, which the RBAC objects let alice read.
var rbacAuthz = stacks.RBACProxyAuthz{Namespace: stacks.Namespace, EchoService: stacks.EchoService}

// kubeconfig is the kubeconfig of the lab identity named name: the
// kube-apiserver through the fault proxy's apiserver link.
func (b *builder) kubeconfig(name string) stacks.Kubeconfig {
	return stacks.Kubeconfig{Server: b.apiserverURL(), CA: b.certs.CA,
		User: name, TokenFile: b.secrets.TokenFile(name)}
}

// haproxy plays the OpenShift router serving the 2x Route.
func (b *builder) haproxy() (*spec, error) {
	bin, err := lookupTool(stacks.ProgramHAProxy)
	if err != nil {
		return nil, err
	}
	cfg := stacks.ConfPath(b.dir, stacks.ConfigRouter)
	u := b.url("https", stacks.HAProxy, "")
	router := b.router()
	return &spec{
		ComponentInfo: b.info(stacks.HAProxy, bin),
		argv:          []string{bin, "-db", "-f", cfg},
		ports:         portsOf(stacks.HAProxy),
		after:         []string{stacks.OAuthProxy},
		prepare:       func() error { return stacks.RenderTo(cfg, stacks.ConfigRouter, router) },
		// Alice through the whole stack: route, TokenReview, SAR, backend.
		ready: func(ctx context.Context) error {
			return probeWithTokenFile(ctx, b.client, u+stacks.EchoPath, b.secrets.TokenFile(stacks.UserAlice), stacks.EchoText, 200)
		},
	}, nil
}

// router is HAProxy's config: the 2x Route re-encrypting to the oauth
// proxy, which serves TLS only.
func (b *builder) router() stacks.Router {
	return stacks.Router{Termination: "reencrypt", Listen: b.addr(stacks.HAProxy),
		Backend: "route_" + stacks.Echo2x, Server: b.addr(stacks.OAuthProxy), TLS: b.certs.TLSFiles(),
		Metrics: b.addr(stacks.PortHAProxyMetrics)}
}
