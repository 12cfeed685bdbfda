package stacks

import "testing"

func TestFaultProxyNames(t *testing.T) {
	tests := []struct{ link, stack, name, port string }{
		{"apiserver", "", "apiserver", PortToxiproxyAPIServer},
		{"keycloak", "", "keycloak", PortToxiproxyKeycloak},
		{"client", Stack3xOAuth, "client-3x-oauth", "toxiproxy-client-3x-oauth"},
	}
	for _, tc := range tests {
		if got := FaultProxyName(tc.link, tc.stack); got != tc.name {
			t.Errorf("FaultProxyName(%q, %q) = %q, want %q", tc.link, tc.stack, got, tc.name)
		}
		if got := FaultProxyPort(tc.link, tc.stack); got != tc.port {
			t.Errorf("FaultProxyPort(%q, %q) = %q, want %q", tc.link, tc.stack, got, tc.port)
		}
	}
	if c, ok := Lookup(Toxiproxy); !ok || c.Role != RoleFaultProxy || c.Stack != Shared {
		t.Errorf("Lookup(%q) = %+v, %v: want the shared fault proxy", Toxiproxy, c, ok)
	}
}
