package processes

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/lab/internal/frontend"
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

// writeEDS writes a gateway's endpoints files, each atomically (a rename
// into the directory Envoy watches), and counts a version for each write.
func (b *builder) writeEDS(gw stacks.Gateway) error {
	if err := os.MkdirAll(gw.EDSDir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", gw.EDSDir, err)
	}
	b.edsVersion++
	for path, ce := range gw.EDSFiles(b.edsVersion) {
		if err := stacks.RenderTo(path, stacks.ConfigEDS, ce); err != nil {
			return err
		}
	}
	return nil
}

// edsWait bounds how long a gateway may take to load new endpoints.
var edsWait = frontend.Wait{Within: 10 * time.Second, Every: 50 * time.Millisecond}

// reroute points a gateway at the current replicas by rewriting its
// endpoints files, and waits until its admin interface lists exactly
// them: Envoy takes them live, without a restart or a dropped request.
func (b *builder) reroute(ctx context.Context, name string) error {
	gw := b.gatewayConfig(name)
	if err := b.writeEDS(gw); err != nil {
		return err
	}
	admin := "http://" + b.addr(stacks.EnvoyAdminPort(name)) + "/clusters"
	return frontend.WaitEndpoints(ctx, b.client, admin, gw, edsWait)
}

// reslot points the route's HAProxy at the current replicas of the oauth
// proxy through its runtime API.
func (b *builder) reslot(ctx context.Context) error {
	r := b.router()
	return frontend.Reslot(ctx, r.RuntimeSocket, r, b.replicaCount(stacks.OAuthProxy), func(i int) stacks.Endpoint {
		return stacks.MustEndpoint(b.addr(stacks.ReplicaName(stacks.OAuthProxy, i)))
	})
}
