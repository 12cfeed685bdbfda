package processes

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/internal/faultproxy"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// The fault proxy: Toxiproxy on the lab's links. Every auth component
// reaches the kube-apiserver through the apiserver link and Keycloak
// through the keycloak link (so Keycloak's issuer is the link's address);
// the client link, one proxy per stack's entry point, exists only when
// the lab asks for it (--client-link, --client-rtt).

// toxiproxyLogLevel keeps Toxiproxy from logging every connection (its
// info level): the lab's logs say what the components do, not the proxy.
const toxiproxyLogLevel = "LOG_LEVEL=warn"

// toxiproxy is the fault proxy's server, on 127.0.0.1; setup creates the
// links' proxies.
func (b *builder) toxiproxy() (*spec, error) {
	bin, err := lookupTool(stacks.ProgramToxiproxy)
	if err != nil {
		return nil, err
	}
	api := faultproxy.Lab(b.ports)
	proxies := faultproxy.Proxies(b.links())
	return &spec{
		ComponentInfo: b.info(stacks.Toxiproxy, bin),
		argv:          []string{bin, "-host", stacks.Loopback, "-port", strconv.Itoa(b.ports[stacks.Toxiproxy])},
		env:           []string{toxiproxyLogLevel},
		// The links' ports are bound by setup, through the API.
		ports: faultproxy.PortNames(b.cfg),
		ready: func(ctx context.Context) error {
			_, err := api.Version(ctx)
			return err
		},
		setup: func(ctx context.Context) error { return api.Populate(ctx, proxies) },
	}, nil
}

// links are the lab's links and their proxies, the apiserver link in
// front of the lab's own stand-in apiserver.
func (b *builder) links() []lab.LinkInfo {
	return faultproxy.Links(b.cfg, b.ports, b.ports[stacks.APIServer])
}

// apiserverURL is where the auth components reach the kube-apiserver:
// through the apiserver link.
func (b *builder) apiserverURL() string {
	return b.url("https", stacks.PortToxiproxyAPIServer, "")
}

// keycloakPublicURL is where every client reaches Keycloak: through the
// keycloak link. Keycloak names it as its hostname, so tokens' iss is the
// link's address and verifies wherever it is checked.
func (b *builder) keycloakPublicURL() string {
	return b.url("https", stacks.PortToxiproxyKeycloak, "")
}

// clientTargets sends each target's client through its stack's client
// link, when the lab has one; the layers' own rungs stay direct.
func (b *builder) clientTargets(ts []lab.StackTarget) []lab.StackTarget {
	if !b.cfg.ClientLink {
		return ts
	}
	return faultproxy.ClientTargets(ts, b.ports)
}

// applyClientRTT sets --client-rtt's delay on the client link before the
// lab is ready, and logs it as any fault.
func (s *supervisor) applyClientRTT(ctx context.Context, b *builder) error {
	f, ok := s.cfg.ClientFault()
	if !ok {
		return nil
	}
	st := lab.State{Links: b.links()}
	l, _ := st.Link(results.LinkClient)
	if err := faultproxy.Apply(ctx, faultproxy.Lab(b.ports), faultproxy.ProxyNames(l), f); err != nil {
		return fmt.Errorf("setting --client-rtt %s on the client link: %w", s.cfg.ClientRTT, err)
	}
	s.logf("client link: round trip %s added to every entry point (--client-rtt)", s.cfg.ClientRTT)
	return lab.AppendFault(s.dir, f.Event(time.Now()))
}
