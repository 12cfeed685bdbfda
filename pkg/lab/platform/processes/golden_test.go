package processes

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// goldenDir is the lab dir golden files are rendered for.
const goldenDir = "/LAB"

// fakeTools makes tool lookups deterministic for golden files.
func fakeTools(t *testing.T) {
	t.Helper()
	oldTool, oldVer, oldExe := lookupTool, toolVersion, standinExe
	t.Cleanup(func() { lookupTool, toolVersion, standinExe = oldTool, oldVer, oldExe })
	standinExe = func() (string, error) { return "/usr/local/bin/authbench", nil }
	versions := map[string]string{"http-echo": toolcache.HTTPEchoVersion, "oauth2-proxy": toolcache.OAuth2ProxyVersion,
		"kube-rbac-proxy": toolcache.KubeRBACProxyVersion, "kube-apiserver": toolcache.KubeAPIServerVersion,
		"keycloak": toolcache.KeycloakVersion, "toxiproxy-server": toolcache.ToxiproxyVersion}
	lookupTool = func(name string) (string, error) {
		v, pinned := versions[name]
		switch {
		case name == "keycloak":
			return "/TOOLS/keycloak-" + v + "/bin/kc.sh", nil
		case pinned:
			return fmt.Sprintf("/TOOLS/%s-%s/bin/%s", name, v, name), nil
		}
		return "/usr/sbin/" + name, nil
	}
	toolVersion = func(name, path string) string {
		if v := versionFromToolPath(name, path); v != "" {
			return v
		}
		return "9.9.9"
	}
}

// goldenBuilder is a builder with fixed dir and ports, as a lab with both
// stacks would have.
func goldenBuilder(t *testing.T, set ...string) *builder {
	t.Helper()
	fakeTools(t)
	cfg := lab.Config{Stacks: set}
	if err := cfg.Complete(); err != nil {
		t.Fatal(err)
	}
	all := lab.Config{Stacks: []string{"all"}}
	_ = all.Complete()
	names := portNames(all)
	sort.Strings(names)
	ports := map[string]int{}
	for i, n := range names {
		ports[n] = 41000 + i
	}
	return &builder{dir: goldenDir, cfg: cfg, ports: ports, certs: stacks.CertPaths(goldenDir), secrets: stacks.SecretPaths(goldenDir)}
}

func TestTemplatesGolden(t *testing.T) {
	b := goldenBuilder(t, "all")
	tests := []struct {
		golden, config string
		data           any
	}{
		{"haproxy.cfg", stacks.ConfigRouter, b.router()},
		{"envoy.yaml", stacks.ConfigGateway, b.gatewayConfig(stacks.Envoy)},
		{"envoy-oauth.yaml", stacks.ConfigGateway, b.gatewayConfig(stacks.EnvoyOAuth)},
		{"kube-rbac-proxy.yaml", stacks.ConfigRBACProxy, rbacAuthz},
		{"kubeconfig", stacks.ConfigKubeconfig, b.kubeconfig(stacks.OAuthProxy)},
		{"audit-policy.yaml", stacks.ConfigAuditPolicy, stacks.AuditPolicy{}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := stacks.Render(tt.config, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(got, []byte("<no value>")) {
				t.Errorf("%s has an unset field:\n%s", tt.golden, got)
			}
			testenv.Golden(t, "testdata/"+tt.golden+".golden", got)
		})
	}
}

// describeSpecs prints what matters of each component for review.
func describeSpecs(specs []*spec) []byte {
	var b bytes.Buffer
	for _, sp := range specs {
		fmt.Fprintf(&b, "%s (stack %s, role %s, program %s %s)\n", sp.Name, sp.Stack, sp.Role, sp.Program, sp.Version)
		if sp.Plays != "" {
			fmt.Fprintf(&b, "  plays: %s\n", sp.Plays)
		}
		fmt.Fprintf(&b, "  url: %s\n  ports: %s\n  after: %s\n  argv:\n", sp.URL, strings.Join(sp.ports, " "), strings.Join(sp.after, " "))
		for _, a := range sp.argv {
			fmt.Fprintf(&b, "    %s\n", a)
		}
	}
	return b.Bytes()
}

func TestComponentsGolden(t *testing.T) {
	for _, set := range []string{"all", "2x", "3x", "3x-oauth"} {
		t.Run(set, func(t *testing.T) {
			b := goldenBuilder(t, set)
			specs, err := b.specs()
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range specs {
				for _, a := range sp.argv {
					if strings.Contains(a, "0.0.0.0") || strings.Contains(a, "[::]") {
						t.Errorf("%s binds a wildcard address: %s", sp.Name, a)
					}
				}
			}
			testenv.Golden(t, "testdata/components-"+set+".golden", describeSpecs(specs))
		})
	}
}

func TestScenarioGolden(t *testing.T) {
	b := goldenBuilder(t, "all")
	specs, err := b.specs()
	if err != nil {
		t.Fatal(err)
	}
	st := &lab.State{Dir: goldenDir, CACert: b.certs.CA, Stacks: b.cfg.Stacks, Targets: stackTargets(b.cfg, specs)}
	for _, sp := range specs {
		st.Components = append(st.Components, sp.ComponentInfo)
	}
	got, err := lab.ScenarioYAML(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sha256~", "password:", "client_secret:"} {
		if bytes.Contains(got, []byte(secret)) {
			t.Errorf("scenario holds a secret value (%q)", secret)
		}
	}
	testenv.Golden(t, "testdata/scenario.yaml.golden", got)
}
