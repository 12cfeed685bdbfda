package processes

import (
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/stacks"
)

// replicaCount is how many replicas of base run (one when not scaled).
func (b *builder) replicaCount(base string) int {
	if n := b.replicas[base]; n > 0 {
		return n
	}
	return 1
}

// more lists the addresses of base's replicas beyond the first.
func (b *builder) more(base string) []string {
	var out []string
	for i := 2; i <= b.replicaCount(base); i++ {
		out = append(out, b.addr(stacks.ReplicaName(base, i)))
	}
	return out
}

func endpoints(addrs []string) []stacks.Endpoint {
	var out []stacks.Endpoint
	for _, a := range addrs {
		out = append(out, stacks.MustEndpoint(a))
	}
	return out
}

// replica builds replica name of the scalable component base: the same
// program and flags as base, on its own ports, as its own identity.
func (b *builder) replica(base, name string) (*spec, error) {
	switch base {
	case stacks.OAuthProxy:
		return b.standin(name, stacks.Echo2x, stacks.ModeOAuthProxy)
	case stacks.KubeAuthProxyOAuth:
		return b.standin(name, stacks.AuthzOKOAuth, stacks.ModeKubeAuthProxy)
	case stacks.OAuth2Proxy:
		return b.oauth2ProxyNamed(name)
	case stacks.KubeRBACProxy:
		return b.rbacProxy(name, stacks.Echo3x)
	case stacks.KubeRBACProxyOAuth:
		s, err := b.rbacProxy(name, stacks.Echo3xOAuth)
		if err == nil {
			s.argv = append(s.argv, stacks.KubeAPIRateArgs()...)
		}
		return s, err
	}
	return nil, fmt.Errorf("%s: %w", base, errNotScalable)
}

// front rebuilds the spec of a layer that balances replicas.
func (b *builder) front(name string) (*spec, error) {
	switch name {
	case stacks.HAProxy:
		return b.haproxy()
	case stacks.Envoy, stacks.EnvoyOAuth:
		return b.gateway(name)()
	}
	return nil, fmt.Errorf("%s balances no replicas", name)
}

// endpointsNote lists what a front balances, for the supervisor's log.
func (b *builder) endpointsNote(front string) string {
	var parts []string
	for _, base := range stacks.ScalableNames() {
		if f, _ := stacks.Scalable(base); f.Name == front && b.cfg.Has(f.Stack) {
			parts = append(parts, fmt.Sprintf("%d %s", b.replicaCount(base), base))
		}
	}
	return strings.Join(parts, " and ")
}
