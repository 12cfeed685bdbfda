package kube

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// The CLI hands Platform to lab.Open as the kube platform.
func TestPlatform(t *testing.T) {
	var p lab.Platform = Platform{}
	if p.Name() != lab.PlatformKube {
		t.Errorf("name %q, want %q", p.Name(), lab.PlatformKube)
	}
}

// The kube lab's components are the processes lab's, each located at its
// Deployment and container, with its hostNetwork entry point.
func TestComponents(t *testing.T) {
	ports := map[string]int{}
	for i, n := range append(stacks.PortNames(stacks.Stack2x), stacks.PortNames(stacks.Stack3x)...) {
		ports[n] = 40000 + i
	}
	refs := map[string]string{"envoy": "authbench.local/envoy:1.40.0", "http-echo": "authbench.local/http-echo:v1.0.0"}
	versions := map[string]string{"http-echo": "v1.0.0", "haproxy": "2.8.25", "envoy": "1.40.0"}
	cs := components([]string{stacks.Stack2x, stacks.Stack3x}, ports, refs, versions, 6443, "https://127.0.0.1:8081/realms/authbench")
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	want := []string{stacks.HAProxy, stacks.OAuthProxy, stacks.Echo2x, stacks.Envoy, stacks.OAuth2Proxy,
		stacks.KubeRBACProxy, stacks.Echo3x, stacks.APIServer, stacks.Keycloak}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("components %v, want %v", names, want)
	}
	for _, tc := range []struct{ name, pod, container, url, version string }{
		{stacks.OAuthProxy, "http-echo-2x-.*", "oauth-proxy", entry("https", ports[stacks.OAuthProxy]), ""},
		{stacks.OAuth2Proxy, "oauth2-proxy-.*", "oauth2-proxy", entry("http", ports[stacks.OAuth2Proxy]), ""},
		{stacks.Envoy, "envoy-.*", "envoy", entry("https", ports[stacks.Envoy]), "1.40.0"},
		{stacks.Echo3x, "http-echo-3x-.*", "http-echo", entry("http", ports[stacks.Echo3x]), "v1.0.0"},
		{stacks.HAProxy, "haproxy-.*", "haproxy", entry("https", ports[stacks.HAProxy]), "2.8.25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c lab.ComponentInfo
			for _, x := range cs {
				if x.Name == tc.name {
					c = x
				}
			}
			if c.Namespace != "authbench" || c.Pod != tc.pod || c.Container != tc.container || c.URL != tc.url || c.Version != tc.version {
				t.Errorf("%+v, want pod %s container %s url %s version %s", c, tc.pod, tc.container, tc.url, tc.version)
			}
			if !strings.Contains(c.Workload, "Deployment authbench/") || !strings.Contains(c.Workload, "container "+tc.container) {
				t.Errorf("workload %q", c.Workload)
			}
		})
	}
	for _, c := range cs {
		if (c.Name == stacks.Keycloak || c.Name == stacks.APIServer) && c.Namespace != "" {
			t.Errorf("%s is not a pod but has namespace %q (it would be sampled through Prometheus)", c.Name, c.Namespace)
		}
	}
	ts := targets([]string{stacks.Stack3x}, cs)
	if len(ts) != 1 || ts[0].Name != stacks.Target3x || ts[0].URL != entry("https", ports[stacks.Envoy]) || len(ts[0].Layers) != 4 {
		t.Errorf("targets %+v", ts)
	}
}

// entry is a component's entry point on the lab's loopback.
func entry(scheme string, port int) string {
	return fmt.Sprintf("%s://127.0.0.1:%d/echo", scheme, port)
}

// Stack 3x-oauth has the processes lab's components, target and layers:
// the ext_authz service's upstream is a component (sampled, limitable)
// but no layer.
func TestComponents3xOAuth(t *testing.T) {
	ports := map[string]int{}
	for i, n := range stacks.PortNames(stacks.Stack3xOAuth) {
		ports[n] = 41000 + i
	}
	cs := components([]string{stacks.Stack3xOAuth}, ports, map[string]string{}, nil, 6443, "")
	byName := map[string]lab.ComponentInfo{}
	for _, c := range cs {
		byName[c.Name] = c
	}
	for _, tc := range []struct{ name, pod, container, url string }{
		{stacks.EnvoyOAuth, "envoy-oauth-.*", "envoy-oauth", "https://127.0.0.1:41004/echo"},
		{stacks.KubeAuthProxyOAuth, "kube-auth-proxy-oauth-.*", "kube-auth-proxy-oauth", "https://127.0.0.1:41003/echo"},
		{stacks.AuthzOKOAuth, "kube-auth-proxy-oauth-.*", "authz-ok-oauth", "http://127.0.0.1:41002/echo"},
		{stacks.KubeRBACProxyOAuth, "http-echo-3x-oauth-.*", "kube-rbac-proxy-oauth", "https://127.0.0.1:41001/echo"},
		{stacks.Echo3xOAuth, "http-echo-3x-oauth-.*", "http-echo", "http://127.0.0.1:41000/echo"},
	} {
		c, ok := byName[tc.name]
		if !ok || c.Pod != tc.pod || c.Container != tc.container || c.URL != tc.url {
			t.Errorf("%s: %+v, want pod %s container %s url %s", tc.name, c, tc.pod, tc.container, tc.url)
		}
	}
	if ext := byName[stacks.KubeAuthProxyOAuth]; ext.Role != "ext-authz" || !strings.Contains(ext.Plays, "kube-auth-proxy") ||
		!strings.Contains(ext.Plays, "no cache") {
		t.Errorf("the ext_authz component does not say what it plays and how it caches: %+v", ext)
	}
	ts := targets([]string{stacks.Stack3xOAuth}, cs)
	var layers []string
	for _, l := range ts[0].Layers {
		layers = append(layers, l.Layer)
	}
	want := []string{stacks.EnvoyOAuth, stacks.KubeAuthProxyOAuth, stacks.KubeRBACProxyOAuth, stacks.Echo3xOAuth}
	if ts[0].Name != stacks.Target3xOAuth || ts[0].URL != "https://127.0.0.1:41004/echo" || !reflect.DeepEqual(layers, want) {
		t.Errorf("target %+v, layers %v, want %s with layers %v", ts[0], layers, stacks.Target3xOAuth, want)
	}
	// The stand-in replaced kube-rbac-proxy in the ext_authz role: the
	// notes say so, and what it does per request.
	n := strings.Join(append(notes(cs, []string{stacks.Stack3xOAuth}), standinNotes(lab.Config{}, cs)...), "\n")
	if !strings.Contains(n, "kube-auth-proxy stand-in is the ext_authz") || !strings.Contains(n, "API client 5 QPS, burst 10") {
		t.Errorf("notes do not say who plays kube-auth-proxy:\n%s", n)
	}
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     lab.Config
		limits  []lab.Limit
		wantErr string
	}{
		{"defaults", lab.Config{}, nil, ""},
		{"component", lab.Config{Limits: []lab.Limit{{Component: "oauth2-proxy", MilliCPU: 50}}},
			[]lab.Limit{{Component: "oauth2-proxy", MilliCPU: 50}}, ""},
		{"program limits every component running it", lab.Config{Limits: []lab.Limit{{Component: "http-echo", MilliCPU: 200}}},
			[]lab.Limit{{Component: "http-echo-2x", MilliCPU: 200}, {Component: "http-echo-3x", MilliCPU: 200},
				{Component: "authz-ok-oauth", MilliCPU: 200}, {Component: "http-echo-3x-oauth", MilliCPU: 200}}, ""},
		{"only the stacks that run", lab.Config{Stacks: []string{"3x"}, Limits: []lab.Limit{{Component: "haproxy", MilliCPU: 50}}},
			nil, "no such component in the kube lab"},
		{"unknown", lab.Config{Limits: []lab.Limit{{Component: "nginx", MilliCPU: 50}}}, nil, "no such component"},
		{"none at up", lab.Config{Limits: []lab.Limit{{Component: "envoy"}}}, nil, "give a cpu or a memory limit"},
		{"authz timeout", lab.Config{AuthzTimeout: -time.Second}, nil, "--authz-timeout"},
		{"authz failure mode", lab.Config{AuthzFailureMode: "open"}, nil, "--authz-failure-mode"},
		{"all is the kube lab's stacks", lab.Config{Stacks: []string{"all"}}, nil, ""},
		{"3x-oauth alone", lab.Config{Stacks: []string{"3x-oauth"}}, nil, ""},
		{"3x-oauth's ext_authz by name", lab.Config{Stacks: []string{"3x-oauth"}, Limits: []lab.Limit{{Component: "kube-auth-proxy-oauth", MilliCPU: 200}}},
			[]lab.Limit{{Component: "kube-auth-proxy-oauth", MilliCPU: 200}}, ""},
		// The ext_authz service is authbench's kube-auth-proxy stand-in
		// now, so kube-rbac-proxy is only the sidecar.
		{"kube-rbac-proxy by program", lab.Config{Stacks: []string{"3x-oauth"}, Limits: []lab.Limit{{Component: "kube-rbac-proxy", MilliCPU: 300}}},
			[]lab.Limit{{Component: "kube-rbac-proxy-oauth", MilliCPU: 300}}, ""},
		{"what-ifs validated", lab.Config{Stacks: []string{"3x-oauth"}, AuthzAPIQPS: -1}, nil, "--authz-api-qps"},
		{"unknown stack", lab.Config{Stacks: []string{"4x"}}, nil, "unknown stack"},
		{"token pool", lab.Config{TokenPool: 10}, nil, ""},
		{"token pool too large", lab.Config{TokenPool: stacks.MaxTokenPool + 1}, nil, "--token-pool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			err := complete(&c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.ReadyTimeout != lab.DefaultReadyTimeout || c.AccessTokenLifespan != lab.DefaultAccessTokenLifespan {
				t.Errorf("defaults not filled: %+v", c)
			}
			if (len(tc.cfg.Stacks) == 0 || tc.cfg.Stacks[0] == "all") && !reflect.DeepEqual(c.Stacks, stacks.Names()) {
				t.Errorf("stacks %v, want all", c.Stacks)
			}
			if !reflect.DeepEqual(c.Limits, tc.limits) {
				t.Errorf("limits %+v, want %+v", c.Limits, tc.limits)
			}
		})
	}
}

func TestStackLimits(t *testing.T) {
	got := stackLimits([]lab.Limit{{Component: "oauth2-proxy", MilliCPU: 50}, {Component: "nginx", MilliCPU: 500, MemoryBytes: 256 << 20}})
	want := map[string]map[string]string{"oauth2-proxy": {"cpu": "50m"}, "nginx": {"cpu": "500m", "memory": "268435456"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

func TestMatchComponents(t *testing.T) {
	cs := []lab.ComponentInfo{{Name: "http-echo-2x", Program: "http-echo", Namespace: "authbench"},
		{Name: "http-echo-3x", Program: "http-echo", Namespace: "authbench"},
		{Name: "keycloak", Program: "keycloak"},
		{Name: "oauth-proxy", Program: "authbench", Namespace: "authbench"},
		{Name: "oauth-proxy-r2", Program: "authbench", Namespace: "authbench", ReplicaOf: "oauth-proxy"}}
	for _, tc := range []struct {
		name string
		want []int
	}{{"http-echo-3x", []int{1}}, {"http-echo", []int{0, 1}}, {"keycloak", nil}, {"nope", nil},
		{"oauth-proxy", []int{3, 4}}, {"oauth-proxy-r2", []int{4}}} {
		if got := matchComponents(cs, tc.name); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTagOf(t *testing.T) {
	for ref, want := range map[string]string{"authbench.local/nginx:1.22": "1.22", "localhost:5000/x": "", "": ""} {
		if got := tagOf(ref); got != want {
			t.Errorf("tagOf(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestOwnPod(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{"authbench_kube-auth-proxy-oauth-7d9f8c6b5-x2k4q_0b6e", true},
		{"authbench_kube-auth-proxy-oauth-r2-6c8d9f7b4-p9z8m_1c7f", false},
		{"authbench_envoy-oauth-5f6d7c8b9-abcde_2d8a", false},
	} {
		if got := ownPod(tc.dir, "authbench_kube-auth-proxy-oauth-"); got != tc.want {
			t.Errorf("ownPod(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}

func TestGatewayEndpoints(t *testing.T) {
	ports := map[string]int{stacks.KubeAuthProxyOAuth: 100, stacks.ReplicaName(stacks.KubeAuthProxyOAuth, 2): 102,
		stacks.ReplicaName(stacks.KubeAuthProxyOAuth, 3): 103, stacks.KubeRBACProxyOAuth: 200}
	count := func(c string) int {
		if c == stacks.KubeAuthProxyOAuth {
			return 3
		}
		return 1
	}
	gw, err := gatewayEndpoints("/lab", stacks.EnvoyOAuth, ports, count)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(gw.EDSDir, gw.ExtAuthz, gw.MoreExtAuthz, gw.Backend, gw.MoreBackends)
	if want := "/lab/eds/envoy-oauth{127.0.0.1 100} [{127.0.0.1 102} {127.0.0.1 103}] {127.0.0.1 200} []"; got != want {
		t.Errorf("endpoints %s, want %s", got, want)
	}
	if _, err := gatewayEndpoints("/lab", stacks.HAProxy, ports, count); err == nil {
		t.Error("HAProxy as a gateway: no error")
	}
}

func TestOwnPods(t *testing.T) {
	s := &lab.State{Components: []lab.ComponentInfo{{Name: stacks.OAuthProxy, Pod: "http-echo-2x-.*"}}}
	ownPods(s, stacks.OAuthProxy)
	if p := s.Components[0].Pod; p != "http-echo-2x-.*" {
		t.Errorf("one replica: pod %s", p)
	}
	s.Components = append(s.Components, lab.ComponentInfo{Name: "oauth-proxy-r2", ReplicaOf: stacks.OAuthProxy})
	ownPods(s, stacks.OAuthProxy)
	re := regexp.MustCompile("^(?:" + s.Components[0].Pod + ")$")
	if !re.MatchString("http-echo-2x-7d9f8c6b5-x2k4q") || re.MatchString("oauth-proxy-r2-7d9f8c6b5-x2k4q") || re.MatchString("http-echo-2x-r2-7d9f8c6b5-x2k4q") {
		t.Errorf("two replicas: pod pattern %s", re)
	}
}
