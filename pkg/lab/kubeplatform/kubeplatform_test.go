package kubeplatform

import (
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/lab"
)

func TestRegistered(t *testing.T) {
	found := false
	for _, n := range lab.Platforms() {
		found = found || n == lab.PlatformKube
	}
	if !found {
		t.Fatalf("platforms %v: kube not registered", lab.Platforms())
	}
}

// The kube lab's components are the processes lab's, each located at its
// Deployment and container, with its hostNetwork entry point.
func TestComponents(t *testing.T) {
	ports := map[string]int{}
	for i, n := range append(manifests.PortNames(lab.Stack2x), manifests.PortNames(lab.Stack3x)...) {
		ports[n] = 40000 + i
	}
	refs := map[string]string{"nginx": "authbench.local/nginx:1.22.1-9", "http-echo": "authbench.local/http-echo:v1.0.0"}
	cs := components([]string{lab.Stack2x, lab.Stack3x}, ports, refs, 6443, "https://127.0.0.1:8081/realms/authbench")
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	want := []string{lab.CompHAProxy, lab.CompOAuthProxy, lab.CompEcho2x, lab.CompNginx, lab.CompOAuth2Proxy,
		lab.CompKubeRBACProxy, lab.CompEcho3x, lab.CompAPIServer, lab.CompKeycloak}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("components %v, want %v", names, want)
	}
	for _, tc := range []struct{ name, pod, container, url, version string }{
		{lab.CompOAuthProxy, "http-echo-2x-.*", "oauth-proxy", "https://127.0.0.1:40001/echo", ""},
		{lab.CompOAuth2Proxy, "oauth2-proxy-.*", "oauth2-proxy", "http://127.0.0.1:40005/echo", ""},
		{lab.CompNginx, "nginx-.*", "nginx", "https://127.0.0.1:40007/echo", "1.22.1-9"},
		{lab.CompEcho3x, "http-echo-3x-.*", "http-echo", "http://127.0.0.1:40003/echo", "v1.0.0"},
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
		if (c.Name == lab.CompKeycloak || c.Name == lab.CompAPIServer) && c.Namespace != "" {
			t.Errorf("%s is not a pod but has namespace %q (it would be sampled through Prometheus)", c.Name, c.Namespace)
		}
	}
	ts := targets([]string{lab.Stack3x}, cs)
	if len(ts) != 1 || ts[0].Name != lab.Target3x || ts[0].URL != "https://127.0.0.1:40007/echo" || len(ts[0].Layers) != 4 {
		t.Errorf("targets %+v", ts)
	}
}

// Stack 3x-oauth has the processes lab's components, target and layers:
// the ext_authz service's upstream is a component (sampled, limitable)
// but no layer.
func TestComponents3xOAuth(t *testing.T) {
	ports := map[string]int{}
	for i, n := range manifests.PortNames(lab.Stack3xOAuth) {
		ports[n] = 41000 + i
	}
	cs := components([]string{lab.Stack3xOAuth}, ports, map[string]string{}, 6443, "")
	byName := map[string]lab.ComponentInfo{}
	for _, c := range cs {
		byName[c.Name] = c
	}
	for _, tc := range []struct{ name, pod, container, url string }{
		{lab.CompNginxOAuth, "nginx-oauth-.*", "nginx-oauth", "https://127.0.0.1:41004/echo"},
		{lab.CompKubeAuthProxyOAuth, "kube-auth-proxy-oauth-.*", "kube-auth-proxy-oauth", "https://127.0.0.1:41003/echo"},
		{lab.CompAuthzOKOAuth, "kube-auth-proxy-oauth-.*", "authz-ok-oauth", "http://127.0.0.1:41002/echo"},
		{lab.CompKubeRBACProxyOAuth, "http-echo-3x-oauth-.*", "kube-rbac-proxy-oauth", "https://127.0.0.1:41001/echo"},
		{lab.CompEcho3xOAuth, "http-echo-3x-oauth-.*", "http-echo", "http://127.0.0.1:41000/echo"},
	} {
		c, ok := byName[tc.name]
		if !ok || c.Pod != tc.pod || c.Container != tc.container || c.URL != tc.url {
			t.Errorf("%s: %+v, want pod %s container %s url %s", tc.name, c, tc.pod, tc.container, tc.url)
		}
	}
	if ext := byName[lab.CompKubeAuthProxyOAuth]; ext.Role != "ext-authz" || !strings.Contains(ext.Plays, "kube-auth-proxy") ||
		!strings.Contains(ext.Plays, "cached") {
		t.Errorf("the ext_authz component does not say what it plays and how it caches: %+v", ext)
	}
	ts := targets([]string{lab.Stack3xOAuth}, cs)
	var layers []string
	for _, l := range ts[0].Layers {
		layers = append(layers, l.Layer)
	}
	want := []string{lab.CompNginxOAuth, lab.CompKubeAuthProxyOAuth, lab.CompKubeRBACProxyOAuth, lab.CompEcho3xOAuth}
	if ts[0].Name != lab.Target3xOAuth || ts[0].URL != "https://127.0.0.1:41004/echo" || !reflect.DeepEqual(layers, want) {
		t.Errorf("target %+v, layers %v, want %s with layers %v", ts[0], layers, lab.Target3xOAuth, want)
	}
	if n := strings.Join(notes(cs, []string{lab.Stack3xOAuth}), "\n"); !strings.Contains(n, "kube-rbac-proxy plays it") {
		t.Errorf("notes do not say who plays kube-auth-proxy:\n%s", n)
	}
}

// The manifests and the processes lab name the same things alike: the
// component names, which stack runs which, the pool's group and the
// ext_authz service's answer.
func TestNamesAgree(t *testing.T) {
	for _, st := range Stacks() {
		var ours []string
		for _, c := range stackComponents[st] {
			ours = append(ours, c.info.Name)
		}
		if m := manifests.Components(st); !reflect.DeepEqual(ours, m) {
			t.Errorf("stack %s: components %v here, %v in the manifests", st, ours, m)
		}
	}
	if !reflect.DeepEqual(Stacks(), manifests.Stacks()) {
		t.Errorf("stacks %v, manifests build %v", Stacks(), manifests.Stacks())
	}
	if manifests.PoolGroup != lab.GroupTokenPool || manifests.AuthzOKText != lab.AuthzOKText ||
		manifests.KubeAPIQPS != lab.OAuthKubeAPIQPS || manifests.KubeAPIBurst != lab.OAuthKubeAPIBurst {
		t.Errorf("pool group %q/%q, authz text %q/%q, QPS %d/%d, burst %d/%d", manifests.PoolGroup, lab.GroupTokenPool,
			manifests.AuthzOKText, lab.AuthzOKText, manifests.KubeAPIQPS, lab.OAuthKubeAPIQPS, manifests.KubeAPIBurst, lab.OAuthKubeAPIBurst)
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
		{"unknown", lab.Config{Limits: []lab.Limit{{Component: "envoy", MilliCPU: 50}}}, nil, "no such component"},
		{"none at up", lab.Config{Limits: []lab.Limit{{Component: "nginx"}}}, nil, "give a cpu or a memory limit"},
		{"all is the kube lab's stacks", lab.Config{Stacks: []string{"all"}}, nil, ""},
		{"3x-oauth alone", lab.Config{Stacks: []string{"3x-oauth"}}, nil, ""},
		{"3x-oauth's ext_authz by name", lab.Config{Stacks: []string{"3x-oauth"}, Limits: []lab.Limit{{Component: "kube-auth-proxy-oauth", MilliCPU: 200}}},
			[]lab.Limit{{Component: "kube-auth-proxy-oauth", MilliCPU: 200}}, ""},
		{"kube-rbac-proxy by program", lab.Config{Stacks: []string{"3x-oauth"}, Limits: []lab.Limit{{Component: "kube-rbac-proxy", MilliCPU: 300}}},
			[]lab.Limit{{Component: "kube-auth-proxy-oauth", MilliCPU: 300}, {Component: "kube-rbac-proxy-oauth", MilliCPU: 300}}, ""},
		{"unknown stack", lab.Config{Stacks: []string{"4x"}}, nil, "unknown stack"},
		{"token pool", lab.Config{TokenPool: 10}, nil, ""},
		{"token pool too large", lab.Config{TokenPool: lab.MaxTokenPool + 1}, nil, "--token-pool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			_, err := complete(&c)
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
			if (len(tc.cfg.Stacks) == 0 || tc.cfg.Stacks[0] == "all") && !reflect.DeepEqual(c.Stacks, Stacks()) {
				t.Errorf("stacks %v, want all", c.Stacks)
			}
			if !reflect.DeepEqual(c.Limits, tc.limits) {
				t.Errorf("limits %+v, want %+v", c.Limits, tc.limits)
			}
		})
	}
}

func TestStackLimits(t *testing.T) {
	got := StackLimits([]lab.Limit{{Component: "oauth2-proxy", MilliCPU: 50}, {Component: "nginx", MilliCPU: 500, MemoryBytes: 256 << 20}})
	want := map[string]map[string]string{"oauth2-proxy": {"cpu": "50m"}, "nginx": {"cpu": "500m", "memory": "268435456"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

func TestMatchComponents(t *testing.T) {
	cs := []lab.ComponentInfo{{Name: "http-echo-2x", Program: "http-echo", Namespace: "authbench"},
		{Name: "http-echo-3x", Program: "http-echo", Namespace: "authbench"},
		{Name: "keycloak", Program: "keycloak"}}
	for _, tc := range []struct {
		name string
		want []int
	}{{"http-echo-3x", []int{1}}, {"http-echo", []int{0, 1}}, {"keycloak", nil}, {"nope", nil}} {
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
