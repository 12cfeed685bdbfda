package faultproxy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// Lab is the client of the fault proxy a lab runs, at its API port in
// ports: every platform runs it on the host's loopback.
func Lab(ports map[string]int) *Client {
	return New(stacks.Loopback + ":" + strconv.Itoa(ports[stacks.Toxiproxy]))
}

// ProxyNames lists a link's proxies by name, as Apply and Clear take them.
func ProxyNames(l lab.LinkInfo) []string {
	var out []string
	for _, p := range l.Proxies {
		out = append(out, p.Name)
	}
	return out
}

// LinkProxies is the running lab s's fault proxy client and the proxies of
// link; lab.ErrNoFaultProxy, saying what to do, when s has no such link.
// kind names the lab in that error ("lab", "kube lab").
func LinkProxies(s *lab.State, link, kind string) (*Client, []string, error) {
	l, ok := s.Link(link)
	if !ok {
		return nil, nil, noLinkError(s, link, kind)
	}
	return Lab(s.Ports), ProxyNames(l), nil
}

// noLinkError tells why a lab has no link: started without it, running
// no Keycloak, or started by an authbench without fault proxies.
func noLinkError(s *lab.State, link, kind string) error {
	switch {
	case link == results.LinkClient:
		return fmt.Errorf("%w: the %s was started without the client link; `lab up --client-link` (or --client-rtt D) puts one on every entry point", lab.ErrNoFaultProxy, kind)
	case link == results.LinkKeycloak && len(s.Links) > 0:
		return fmt.Errorf("%w: this %s runs no Keycloak (stacks %v)", lab.ErrNoFaultProxy, kind, s.Stacks)
	}
	return fmt.Errorf("%w: this %s runs no fault proxy on link %s (started by an older authbench? `lab down` and `lab up` again)", lab.ErrNoFaultProxy, kind, link)
}

// ClientTargets sends each target's client through its stack's client
// link (the fault proxy's port in front of the stack's entry point); the
// layers' own rungs stay direct, so that a ladder still sees each hop.
func ClientTargets(ts []lab.StackTarget, ports map[string]int) []lab.StackTarget {
	for i, t := range ts {
		direct := stacks.Loopback + ":" + strconv.Itoa(ports[stacks.EntryPoint(t.Stack)])
		link := stacks.Loopback + ":" + strconv.Itoa(ports[stacks.FaultProxyPort(results.LinkClient, t.Stack)])
		ts[i].URL = strings.Replace(t.URL, "://"+direct, "://"+link, 1)
	}
	return ts
}
