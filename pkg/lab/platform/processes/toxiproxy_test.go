package processes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

// linkBuilder is a builder for cfg with a distinct port per name.
func linkBuilder(t *testing.T, cfg lab.Config) *builder {
	t.Helper()
	fakeTools(t)
	if err := cfg.Complete(); err != nil {
		t.Fatal(err)
	}
	ports := map[string]int{}
	for i, n := range portNames(cfg) {
		ports[n] = 42000 + i
	}
	return &builder{dir: goldenDir, cfg: cfg, ports: ports, certs: stacks.CertPaths(goldenDir), secrets: stacks.SecretPaths(goldenDir)}
}

// The client link exists only when asked for: then each stack's target
// goes through its own proxy to its entry point, and the rungs stay
// direct; the keycloak link only with Keycloak.
func TestLinks(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  lab.Config
		want []string // link: proxy -> upstream component
	}{
		{"default", lab.Config{Stacks: []string{"2x", "3x-oauth"}}, []string{"apiserver: apiserver -> kube-apiserver"}},
		{"with keycloak", lab.Config{Stacks: []string{"3x"}},
			[]string{"apiserver: apiserver -> kube-apiserver", "keycloak: keycloak -> keycloak"}},
		{"client link", lab.Config{Stacks: []string{"2x", "3x-oauth"}, ClientRTT: 45 * time.Millisecond}, []string{
			"apiserver: apiserver -> kube-apiserver", "client: client-2x -> haproxy", "client: client-3x-oauth -> envoy-oauth"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := linkBuilder(t, tc.cfg)
			byPort := map[int]string{}
			for name, p := range b.ports {
				byPort[p] = name
			}
			var got []string
			for _, l := range b.links() {
				for _, p := range l.Proxies {
					var port int
					fmt.Sscanf(p.Upstream[strings.LastIndexByte(p.Upstream, ':')+1:], "%d", &port)
					got = append(got, fmt.Sprintf("%s: %s -> %s", l.Name, p.Name, byPort[port]))
					if p.Listen != b.addr(stacks.Toxiproxy+"-"+p.Name) {
						t.Errorf("proxy %s listens on %s, not on its port", p.Name, p.Listen)
					}
				}
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("links = %q, want %q", got, tc.want)
			}
			checkTargets(t, b)
		})
	}
}

func checkTargets(t *testing.T, b *builder) {
	t.Helper()
	specs, err := b.specs()
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range b.clientTargets(stackTargets(b.cfg, specs)) {
		want := b.url("https", tg.Layers[0].Layer, stacks.EchoPath)
		if b.cfg.ClientLink {
			want = b.url("https", stacks.FaultProxyPort(results.LinkClient, tg.Stack), stacks.EchoPath)
		}
		if tg.URL != want || tg.Layers[0].URL != b.url("https", tg.Layers[0].Layer, stacks.EchoPath) {
			t.Errorf("target %s: url %s (want %s), first rung %s", tg.Name, tg.URL, want, tg.Layers[0].URL)
		}
	}
}
