package processes

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

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
const edsWait = 10 * time.Second

// reroute points a gateway at the current replicas by rewriting its
// endpoints files, and waits until its admin interface lists exactly
// them: Envoy takes them live, without a restart or a dropped request.
func (b *builder) reroute(ctx context.Context, name string) error {
	gw := b.gatewayConfig(name)
	if err := b.writeEDS(gw); err != nil {
		return err
	}
	want := map[string]int{}
	for _, ce := range gw.EDSFiles(0) {
		want[ce.Cluster] = len(ce.Endpoints)
	}
	ctx, cancel := context.WithTimeout(ctx, edsWait)
	defer cancel()
	admin := "http://" + b.addr(stacks.EnvoyAdminPort(name)) + "/clusters"
	for {
		got, err := clusterHosts(ctx, b.client, admin)
		if err == nil && sameCounts(got, want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not load its new endpoints within %s (has %v, want %v)", name, edsWait, got, want)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// clusterHosts counts the hosts of each cluster in Envoy's admin
// /clusters text ("CLUSTER::HOST:PORT::cx_active::0" lines).
func clusterHosts(ctx context.Context, c *http.Client, url string) (map[string]int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	hosts := map[string]map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		parts := strings.Split(line, "::")
		if len(parts) < 3 || !strings.Contains(parts[1], ":") {
			continue
		}
		if hosts[parts[0]] == nil {
			hosts[parts[0]] = map[string]bool{}
		}
		hosts[parts[0]][parts[1]] = true
	}
	out := map[string]int{}
	for c, hs := range hosts {
		out[c] = len(hs)
	}
	return out, nil
}

func sameCounts(got, want map[string]int) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// reslot points the route's HAProxy at the current replicas of the oauth
// proxy through its runtime API: each slot up to the count gets its
// replica's address and is set ready, the others are put in maintenance
// (no new requests) before their replicas stop.
func (b *builder) reslot(ctx context.Context) error {
	r := b.router()
	n := b.replicaCount(stacks.OAuthProxy)
	var cmds []string
	for i := 2; i <= r.ReplicaSlots(); i++ {
		slot := r.Backend + "/" + r.ReplicaSlot(i)
		if i > n {
			cmds = append(cmds, "set server "+slot+" state maint")
			continue
		}
		ep := stacks.MustEndpoint(b.addr(stacks.ReplicaName(stacks.OAuthProxy, i)))
		cmds = append(cmds, fmt.Sprintf("set server %s addr %s port %d", slot, ep.Host, ep.Port), "set server "+slot+" state ready")
	}
	for _, c := range cmds {
		if err := haproxyCommand(ctx, r.RuntimeSocket, c); err != nil {
			return err
		}
	}
	return nil
}

// haproxyCommand sends one command to HAProxy's runtime API; any answer
// but an empty line or a "changed" notice is its refusal.
func haproxyCommand(ctx context.Context, socket, cmd string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return fmt.Errorf("haproxy runtime API: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := io.WriteString(conn, cmd+"\n"); err != nil {
		return fmt.Errorf("haproxy runtime API: %s: %w", cmd, err)
	}
	ans, err := io.ReadAll(io.LimitReader(conn, 4<<10))
	if err != nil {
		return fmt.Errorf("haproxy runtime API: %s: %w", cmd, err)
	}
	if a := strings.TrimSpace(string(ans)); a != "" && !strings.Contains(a, "changed from") && !strings.Contains(a, "no need to change") {
		return fmt.Errorf("haproxy runtime API: %s: %s", cmd, a)
	}
	return nil
}
