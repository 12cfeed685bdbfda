package lab

import (
	"testing"

	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/stacks"
)

// A kube lab's scenario samples its pods through the lab's Prometheus with
// the default cAdvisor profile: one observe entry per pod component, none
// for components outside the cluster, and it loads as a scenario.
func TestScenarioOfKubeLab(t *testing.T) {
	dir := t.TempDir()
	certs, err := stacks.EnsureCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stacks.EnsureSecrets(dir); err != nil {
		t.Fatal(err)
	}
	s := &State{Dir: dir, CACert: certs.CA,
		Prometheus: &LabPrometheus{URL: "http://127.0.0.1:9090", Settle: "13s"},
		Components: []ComponentInfo{
			{Name: stacks.Envoy, Stack: stacks.Stack3x, Role: "gateway", URL: "https://127.0.0.1:1/echo",
				Namespace: "authbench", Pod: "nginx-.*", Container: "nginx"},
			{Name: stacks.OAuth2Proxy, Stack: stacks.Stack3x, Role: "ext-authz", URL: "http://127.0.0.1:2/echo",
				Namespace: "authbench", Pod: "oauth2-proxy-.*", Container: "oauth2-proxy"},
			{Name: stacks.Keycloak, Stack: stacks.Stack3x, Role: "oidc-provider", URL: "https://127.0.0.1:3/realms/authbench"},
		},
		Targets: []StackTarget{{Name: stacks.Target3x, Stack: stacks.Stack3x, URL: "https://127.0.0.1:1/echo",
			Layers: []Rung{{Layer: stacks.Envoy, URL: "https://127.0.0.1:1/echo"}, {Layer: stacks.OAuth2Proxy, URL: "http://127.0.0.1:2/echo"}}}},
	}
	b, err := ScenarioYAML(s)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse("kube.yaml", b)
	if err != nil {
		t.Fatalf("the kube lab's scenario does not load: %v\n%s", err, b)
	}
	if p.Prometheus == nil || p.Prometheus.URL != "http://127.0.0.1:9090" || p.Prometheus.Settle.String() != "13s" {
		t.Errorf("prometheus %+v, want the lab's with settle 13s", p.Prometheus)
	}
	if len(p.Prometheus.Profile) != 0 {
		t.Errorf("profile %v, want the default cAdvisor profile", p.Prometheus.Profile)
	}
	want := map[string]string{stacks.Envoy: "authbench/nginx-.*/nginx", stacks.OAuth2Proxy: "authbench/oauth2-proxy-.*/oauth2-proxy"}
	if len(p.Observe) != len(want) {
		t.Fatalf("observe %+v, want %v", p.Observe, want)
	}
	for _, c := range p.Observe {
		if got := c.Namespace + "/" + c.Pod + "/" + c.Container; got != want[c.Name] {
			t.Errorf("observe %s: %s, want %s", c.Name, got, want[c.Name])
		}
	}
}
