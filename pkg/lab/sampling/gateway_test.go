package sampling

import (
	"testing"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/stacks"
)

func TestGatewaysOf(t *testing.T) {
	st := &lab.State{
		Ports: map[string]int{stacks.PortEnvoyAdmin: 12801, stacks.PortHAProxyMetrics: 12802},
		Components: []lab.ComponentInfo{
			{Name: stacks.Envoy, Stack: stacks.Stack3x, Program: stacks.ProgramEnvoy, Role: stacks.RoleGateway},
			{Name: stacks.EnvoyOAuth, Stack: stacks.Stack3xOAuth, Program: stacks.ProgramEnvoy, Role: stacks.RoleGateway},
			{Name: stacks.HAProxy, Stack: stacks.Stack2x, Program: stacks.ProgramHAProxy, Role: stacks.RoleRoute},
			{Name: stacks.OAuth2Proxy, Stack: stacks.Stack3x, Program: stacks.ProgramOAuth2Proxy, Role: stacks.RoleExtAuthz},
		},
		Targets: []lab.StackTarget{
			{Stack: stacks.Stack3x, URL: "https://127.0.0.1:12810/echo"},
			{Stack: stacks.Stack3xOAuth, URL: "https://127.0.0.1:12811/echo"},
			{Stack: stacks.Stack2x, URL: "https://127.0.0.1:12812/echo"},
		},
	}
	g := gatewaysOf(st)
	tests := []struct {
		url, want string // want: the reader's URL, "" for none
	}{
		{"https://127.0.0.1:12810/echo?x=1", "http://127.0.0.1:12801"},
		{"https://127.0.0.1:12811/echo", ""}, // envoy-oauth's admin port is not in the state
		{"https://127.0.0.1:12812/", "http://127.0.0.1:12802/metrics"},
		{"https://127.0.0.1:9/", ""},
	}
	for _, tt := range tests {
		var got string
		switch r := g.For(tt.url).(type) {
		case *observe.EnvoyAdmin:
			got = r.URL
			if r.Names.UpstreamCluster != stacks.EnvoyClusterBackend || r.Name != stacks.Envoy {
				t.Errorf("%s: names %+v", tt.url, r.Names)
			}
		case *observe.HAProxyMetrics:
			got = r.URL
		}
		if got != tt.want {
			t.Errorf("For(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}
