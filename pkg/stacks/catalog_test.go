package stacks

import (
	"reflect"
	"strings"
	"testing"
)

// Every stack component is complete enough for every platform: a scheme,
// its own port first, a Deployment and container on a cluster, and a name
// no other component has.
func TestCatalogComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Names() {
		st, ok := Get(name)
		if !ok || st.Target == "" || st.Title == "" || TargetName(name) != st.Target {
			t.Fatalf("stack %s: %+v", name, st)
		}
		for _, c := range st.Components {
			if seen[c.Name] {
				t.Errorf("component %s twice", c.Name)
			}
			seen[c.Name] = true
			if c.Stack != name || (c.Scheme != "http" && c.Scheme != "https") || len(c.Ports) == 0 ||
				c.Ports[0].Name != c.Name || c.Deployment == "" || c.Container == "" || c.Program == "" {
				t.Errorf("stack %s: component %+v", name, c)
			}
			for _, p := range c.Ports {
				if PodPort(p.Name) <= 0 {
					t.Errorf("%s: port %s has no pod port", c.Name, p.Name)
				}
			}
			if got, ok := Lookup(c.Name); !ok || !reflect.DeepEqual(got, c) {
				t.Errorf("Lookup(%s) = %+v, %v", c.Name, got, ok)
			}
		}
		first, _ := Lookup(st.Layers()[0])
		if first.Role != RoleRoute && first.Role != RoleGateway {
			t.Errorf("stack %s: outer layer %s is a %s", name, first.Name, first.Role)
		}
	}
}

// A gateway's ext_authz service and route backend are found by role, and
// it has an admin port besides its own, which EnvoyAdminPort names.
func TestGatewaysFindTheirPeers(t *testing.T) {
	for _, name := range []string{Stack3x, Stack3xOAuth} {
		st, _ := Get(name)
		ext, ok1 := st.ByRole(RoleExtAuthz)
		backend, ok2 := st.ByRole(RoleRBACProxy)
		gw := st.Components[0]
		if !ok1 || !ok2 || gw.Role != RoleGateway || len(gw.Ports) != 2 || ext.Name == backend.Name {
			t.Errorf("stack %s: gateway %+v, ext_authz %s, backend %s", name, gw, ext.Name, backend.Name)
		}
		if a := EnvoyAdminPort(gw.Name); a == "" || a != gw.Ports[1].Name {
			t.Errorf("stack %s: admin port %q, want %q", name, a, gw.Ports[1].Name)
		}
	}
	for _, tc := range []struct{ stack, layers string }{
		{Stack2x, "haproxy oauth-proxy http-echo-2x"},
		{Stack3xOAuth, "envoy-oauth kube-auth-proxy-oauth kube-rbac-proxy-oauth http-echo-3x-oauth"},
	} {
		st, _ := Get(tc.stack)
		if got := strings.Join(st.Layers(), " "); got != tc.layers {
			t.Errorf("stack %s: layers %q, want %q", tc.stack, got, tc.layers)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      []string
		want    []string
		wantErr string
	}{
		{[]string{"all"}, Names(), ""},
		{[]string{"3x, 2x", "2x"}, []string{Stack2x, Stack3x}, ""},
		{[]string{"4x"}, nil, `unknown stack "4x"`},
	} {
		got, err := Parse(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%v): %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// A config rendered from the wrong parameters is an error naming it, not
// a config with holes.
func TestRenderWrongParameters(t *testing.T) {
	if _, err := Render(ConfigGateway, Router{}); err == nil || !strings.Contains(err.Error(), ConfigGateway) {
		t.Errorf("gateway from a router's parameters: %v", err)
	}
	if _, err := Render("nginx.conf", Gateway{}); err == nil {
		t.Error("an unknown config rendered")
	}
}
