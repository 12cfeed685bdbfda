package faultproxy

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// A lab's links: the apiserver link always (to the port given), the keycloak link with Keycloak, and a
// client link per stack's entry point only when asked.
func TestLinks(t *testing.T) {
	all := []string{stacks.Stack2x, stacks.Stack3x, stacks.Stack3xOAuth}
	tests := []struct {
		name       string
		cfg        lab.Config
		wantLinks  []string
		wantPorts  []string
		wantClient int
	}{
		{"2x", lab.Config{Stacks: []string{stacks.Stack2x}}, []string{results.LinkAPIServer},
			[]string{stacks.Toxiproxy, stacks.PortToxiproxyAPIServer}, 0},
		{"3x", lab.Config{Stacks: []string{stacks.Stack3x}}, []string{results.LinkAPIServer, results.LinkKeycloak},
			[]string{stacks.Toxiproxy, stacks.PortToxiproxyAPIServer, stacks.PortToxiproxyKeycloak}, 0},
		{"all with the client link", lab.Config{Stacks: all, ClientLink: true},
			[]string{results.LinkAPIServer, results.LinkKeycloak, results.LinkClient},
			[]string{stacks.Toxiproxy, stacks.PortToxiproxyAPIServer, stacks.PortToxiproxyKeycloak,
				"toxiproxy-client-2x", "toxiproxy-client-3x", "toxiproxy-client-3x-oauth"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			names := PortNames(tc.cfg)
			if !reflect.DeepEqual(names, tc.wantPorts) {
				t.Errorf("port names %v, want %v", names, tc.wantPorts)
			}
			ports := map[string]int{stacks.Keycloak: 8443, stacks.HAProxy: 9001, stacks.Envoy: 9002, stacks.EnvoyOAuth: 9003}
			for i, n := range names {
				ports[n] = 41000 + i
			}
			ls := Links(tc.cfg, ports, 6443)
			var got []string
			for _, l := range ls {
				got = append(got, l.Name)
			}
			if !reflect.DeepEqual(got, tc.wantLinks) {
				t.Fatalf("links %v, want %v", got, tc.wantLinks)
			}
			api := ls[0].Proxies[0]
			if api.Listen != addr(ports[stacks.PortToxiproxyAPIServer]) || api.Upstream != addr(6443) {
				t.Errorf("apiserver link %+v, want %s -> 127.0.0.1:6443", api, addr(ports[stacks.PortToxiproxyAPIServer]))
			}
			if l, ok := (&lab.State{Links: ls}).Link(results.LinkClient); ok {
				if len(l.Proxies) != tc.wantClient || l.Proxies[0].Upstream != addr(9001) || l.Proxies[0].Name != "client-2x" {
					t.Errorf("client link %+v, want %d proxies, 2x's to haproxy", l, tc.wantClient)
				}
			}
			if len(Proxies(ls)) != len(names)-1 {
				t.Errorf("%d proxies for %d ports besides the API's", len(Proxies(ls)), len(names)-1)
			}
		})
	}
}

func addr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
