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

// PortNames are the fault proxy's ports a config needs: its API, the
// apiserver link, the keycloak link with Keycloak, and a client link per
// stack when asked.
func PortNames(c lab.Config) []string {
	names := []string{stacks.Toxiproxy, stacks.PortToxiproxyAPIServer}
	if c.Has(stacks.Stack3x) {
		names = append(names, stacks.PortToxiproxyKeycloak)
	}
	if c.ClientLink {
		for _, st := range c.Stacks {
			names = append(names, stacks.FaultProxyPort(results.LinkClient, st))
		}
	}
	return names
}

// Links are a lab's links and their proxies, at ports: the apiserver link
// in front of apiserver's port (which a kube cluster chooses, not ports),
// the keycloak link with Keycloak, a client link per stack when asked.
func Links(c lab.Config, ports map[string]int, apiserver int) []lab.LinkInfo {
	addr := func(port int) string { return stacks.Loopback + ":" + strconv.Itoa(port) }
	proxy := func(link, stack string, upstream int) lab.FaultProxy {
		return lab.FaultProxy{Name: stacks.FaultProxyName(link, stack),
			Listen: addr(ports[stacks.FaultProxyPort(link, stack)]), Upstream: addr(upstream)}
	}
	out := []lab.LinkInfo{{Name: results.LinkAPIServer,
		Proxies: []lab.FaultProxy{proxy(results.LinkAPIServer, "", apiserver)}}}
	if c.Has(stacks.Stack3x) {
		out = append(out, lab.LinkInfo{Name: results.LinkKeycloak,
			Proxies: []lab.FaultProxy{proxy(results.LinkKeycloak, "", ports[stacks.Keycloak])}})
	}
	if c.ClientLink {
		client := lab.LinkInfo{Name: results.LinkClient}
		for _, st := range c.Stacks {
			client.Proxies = append(client.Proxies, proxy(results.LinkClient, st, ports[stacks.EntryPoint(st)]))
		}
		out = append(out, client)
	}
	return out
}

// Proxies are the links' proxies as the fault proxy creates them, each
// enabled: what a lab's Toxiproxy is populated with at start.
func Proxies(ls []lab.LinkInfo) []Proxy {
	var out []Proxy
	for _, l := range ls {
		for _, p := range l.Proxies {
			out = append(out, Proxy{Name: p.Name, Listen: p.Listen, Upstream: p.Upstream, Enabled: true})
		}
	}
	return out
}
