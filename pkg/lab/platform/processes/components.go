package processes

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/faultproxy"
	"github.com/authbench/authbench/pkg/stacks"
)

// spec is one component: how to start it, when it is ready, and what must
// be ready before it.
type spec struct {
	lab.ComponentInfo
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
	limit lab.Limit
}

// builder turns a Config and the lab's files into specs.
type builder struct {
	dir     string
	cfg     lab.Config
	ports   map[string]int
	certs   stacks.Certs
	secrets stacks.Secrets
	client  *http.Client
	// replicas counts each scaled component's replicas (`lab scale`;
	// absent: one), which the layers in front balance across.
	replicas map[string]int
	// edsVersion counts the gateways' endpoints files written.
	edsVersion int
}

// portNames lists the ports a config needs: the shared components', and
// each stack's as the catalog names them.
func portNames(c lab.Config) []string {
	var names []string
	for _, sc := range []stacks.Component{stacks.EtcdComponent, stacks.APIServerComponent} {
		for _, p := range sc.Ports {
			names = append(names, p.Name)
		}
	}
	if c.Has(stacks.Stack3x) {
		names = append(names, stacks.Keycloak)
	}
	names = append(names, faultproxy.PortNames(c)...)
	for _, st := range c.Stacks {
		names = append(names, stacks.PortNames(st)...)
	}
	return names
}

func (b *builder) addr(name string) string {
	return stacks.Loopback + ":" + strconv.Itoa(b.ports[name])
}

func (b *builder) url(scheme, name, path string) string {
	return scheme + "://" + b.addr(name) + path
}

func (b *builder) path(parts ...string) string {
	return filepath.Join(append([]string{b.dir}, parts...)...)
}

// info is the catalog's record of a component, with the version of the
// program that plays it and its own entry point.
func (b *builder) info(name, bin string) lab.ComponentInfo {
	c, _ := stacks.Lookup(name)
	u := b.url(c.Scheme, name, "")
	if c.Stack != stacks.Shared && name != stacks.Keycloak {
		u += stacks.EchoPath
	}
	return lab.ComponentInfo{Name: c.Name, Stack: c.Stack, Role: c.Role, Program: c.Program, Plays: c.Plays,
		Version: toolVersion(c.Program, bin), URL: u}
}

// portsOf lists the names of a component's ports.
func portsOf(name string) []string {
	c, _ := stacks.Lookup(name)
	var out []string
	for _, p := range c.Ports {
		out = append(out, p.Name)
	}
	return out
}

func (b *builder) adminToken() string { return b.secrets.TokenFile(stacks.UserAdmin) }

// specs builds every component of the configured stacks.
func (b *builder) specs() ([]*spec, error) {
	makers := []func() (*spec, error){b.toxiproxy, b.etcd, b.apiserver}
	if b.cfg.Has(stacks.Stack2x) {
		makers = append(makers, b.echo(stacks.Echo2x), b.oauthProxy, b.haproxy)
	}
	if b.cfg.Has(stacks.Stack3x) {
		makers = append(makers, b.keycloak, b.echo(stacks.Echo3x), b.kubeRBACProxy,
			b.oauth2Proxy, b.gateway(stacks.Envoy))
	}
	if b.cfg.Has(stacks.Stack3xOAuth) {
		makers = append(makers, b.echo(stacks.Echo3xOAuth), b.kubeRBACProxyOAuth,
			b.authzOK, b.kubeAuthProxyOAuth, b.gateway(stacks.EnvoyOAuth))
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
