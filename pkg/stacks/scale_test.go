package stacks

import (
	"strings"
	"testing"
)

func TestParseScale(t *testing.T) {
	tests := []struct {
		in      string
		want    Scale
		wantErr string
	}{
		{"kube-auth-proxy-oauth=3", Scale{KubeAuthProxyOAuth, 3}, ""},
		{" oauth-proxy = 1 ", Scale{OAuthProxy, 1}, ""},
		{"kube-rbac-proxy-oauth=32", Scale{KubeRBACProxyOAuth, 32}, ""},
		{"envoy-oauth=2", Scale{}, "cannot be scaled"},
		{"http-echo-2x=2", Scale{}, "cannot be scaled"},
		{"kube-auth-proxy-oauth=0", Scale{}, "from 1 to 32"},
		{"kube-auth-proxy-oauth=33", Scale{}, "from 1 to 32"},
		{"kube-auth-proxy-oauth=two", Scale{}, "whole number"},
		{"kube-auth-proxy-oauth", Scale{}, "COMPONENT=REPLICAS"},
		{"kube-auth-proxy-oauth-r2=2", Scale{}, "cannot be scaled"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseScale(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseScale(%q) error %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseScale(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
	if _, err := ParseScales([]string{"oauth-proxy=2", "oauth-proxy=3"}); err == nil {
		t.Error("a component given twice was accepted")
	}
}

func TestParseScaleSteps(t *testing.T) {
	got, err := ParseScaleSteps("kube-auth-proxy-oauth=1,2,4")
	if err != nil || got.Component != KubeAuthProxyOAuth || len(got.Replicas) != 3 || got.Replicas[2] != 4 {
		t.Fatalf("ParseScaleSteps = %+v, %v", got, err)
	}
	for _, bad := range []string{"kube-auth-proxy-oauth=1,1", "kube-auth-proxy-oauth=", "envoy=1,2", "kube-auth-proxy-oauth=1,x"} {
		if _, err := ParseScaleSteps(bad); err == nil {
			t.Errorf("ParseScaleSteps(%q) accepted", bad)
		}
	}
}

func TestScalableFronts(t *testing.T) {
	tests := []struct{ name, front string }{
		{OAuthProxy, HAProxy},
		{OAuth2Proxy, Envoy},
		{KubeRBACProxy, Envoy},
		{KubeAuthProxyOAuth, EnvoyOAuth},
		{KubeRBACProxyOAuth, EnvoyOAuth},
		{EnvoyOAuth, ""},
		{AuthzOKOAuth, ""},
		{APIServer, ""},
	}
	for _, tc := range tests {
		f, ok := Scalable(tc.name)
		if ok != (tc.front != "") || f.Name != tc.front {
			t.Errorf("Scalable(%s) = %s, %v; want %q", tc.name, f.Name, ok, tc.front)
		}
	}
}

func TestReplicaLookup(t *testing.T) {
	name := ReplicaName(OAuth2Proxy, 3)
	c, ok := Lookup(name)
	if !ok || c.Name != name || c.Role != RoleExtAuthz || c.Program != ProgramOAuth2Proxy {
		t.Fatalf("Lookup(%s) = %+v, %v", name, c, ok)
	}
	if len(c.Ports) != 2 || c.Ports[0].Name != name || c.Ports[1].Name != name+"-metrics" {
		t.Errorf("replica ports = %+v, want its own and its metrics port", c.Ports)
	}
	if base, i, ok := ReplicaOf(name); !ok || base != OAuth2Proxy || i != 3 {
		t.Errorf("ReplicaOf(%s) = %s, %d, %v", name, base, i, ok)
	}
	for _, bad := range []string{OAuth2Proxy + "-r1", OAuth2Proxy + "-r33", OAuth2Proxy + "-r02", Envoy + "-r2", "x-r2"} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%s) found a replica", bad)
		}
	}
	if ReplicaName(OAuthProxy, 1) != OAuthProxy {
		t.Error("the first replica is not the component itself")
	}
}

func TestReplicaIdentitiesProvisioned(t *testing.T) {
	s, err := EnsureSecrets(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	csv, err := ReadSecret(s.TokenAuthFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{saPrefix + ReplicaName(KubeAuthProxyOAuth, 2), saPrefix + ReplicaName(OAuthProxy, MaxReplicas)} {
		if !strings.Contains(csv, ","+want+",") {
			t.Errorf("token-auth file lacks %s", want)
		}
	}
	found := false
	for _, sa := range ProxyServiceAccounts() {
		found = found || sa == ReplicaName(KubeRBACProxyOAuth, 2)
	}
	if !found {
		t.Error("the replicas' identities are not bound to system:auth-delegator")
	}
}

func TestRenderReplicas(t *testing.T) {
	more := []Endpoint{{"127.0.0.1", 20002}, {"127.0.0.1", 20003}}
	g := Gateway{Name: EnvoyOAuth, Stack: Stack3xOAuth, PathPrefix: "/", Listen: Endpoint{"127.0.0.1", 1}, Admin: Endpoint{"127.0.0.1", 2},
		ExtAuthz: Endpoint{"127.0.0.1", 20001}, Backend: Endpoint{"127.0.0.1", 3}, MoreExtAuthz: more, Timeout: 1e9, FailureMode: AuthzFailDeny}
	b, err := Render(ConfigGateway, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"port_value: 20001", "port_value: 20002", "port_value: 20003"} {
		if !strings.Contains(string(b), p) {
			t.Errorf("gateway config lacks %s", p)
		}
	}
	r := Router{Termination: "reencrypt", Listen: "127.0.0.1:1", Backend: "be", Server: "127.0.0.1:4", Metrics: "127.0.0.1:6"}
	for _, sock := range []string{"", "/LAB/run/haproxy.sock"} {
		b, err = Render(ConfigRouter, Router{Termination: r.Termination, Listen: r.Listen, Backend: r.Backend, Server: r.Server, Metrics: r.Metrics, RuntimeSocket: sock})
		if err != nil {
			t.Fatal(err)
		}
		slots := strings.Contains(string(b), "server-template be- 2-32 127.0.0.1:1 disabled ssl") &&
			strings.Contains(string(b), "stats socket /LAB/run/haproxy.sock mode 600 level admin")
		if slots != (sock != "") {
			t.Errorf("runtime socket %q: replica slots rendered %v:\n%s", sock, slots, b)
		}
	}
	if r.ReplicaSlot(3) != "be-3" {
		t.Errorf("slot 3 = %s", r.ReplicaSlot(3))
	}
}
