package lab

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/toolcache"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenDir is the lab dir golden files are rendered for.
const goldenDir = "/LAB"

// fakeTools makes tool lookups deterministic for golden files.
func fakeTools(t *testing.T) {
	t.Helper()
	oldTool, oldVer := lookupTool, toolVersion
	t.Cleanup(func() { lookupTool, toolVersion = oldTool, oldVer })
	versions := map[string]string{"http-echo": toolcache.HTTPEchoVersion, "oauth2-proxy": toolcache.OAuth2ProxyVersion,
		"kube-rbac-proxy": toolcache.KubeRBACProxyVersion, "kube-apiserver": toolcache.KubeAPIServerVersion,
		"keycloak": toolcache.KeycloakVersion}
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
func goldenBuilder(t *testing.T, stacks ...string) *builder {
	t.Helper()
	fakeTools(t)
	cfg := Config{Stacks: stacks}
	if err := cfg.complete(); err != nil {
		t.Fatal(err)
	}
	all := Config{Stacks: []string{"all"}}
	_ = all.complete()
	names := portNames(all)
	sort.Strings(names)
	ports := map[string]int{}
	for i, n := range names {
		ports[n] = 41000 + i
	}
	return &builder{dir: goldenDir, cfg: cfg, ports: ports, certs: certPaths(goldenDir), secrets: secretPaths(goldenDir)}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/lab -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test ./pkg/lab -update rewrites it):\n%s", name, file, diffLines(string(want), string(got)))
	}
}

// diffLines shows the first differing lines, enough to see what changed.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, a, b)
		}
	}
	return ""
}

func TestTemplatesGolden(t *testing.T) {
	b := goldenBuilder(t, "all")
	kc := b.data()
	kc.User, kc.TokenFile = "oauth-proxy", b.secrets.TokenFile("oauth-proxy")
	tests := []struct {
		template string
		data     renderData
	}{
		{"haproxy.cfg", b.data()},
		{"nginx.conf", b.data()},
		{"nginx-oauth.conf", b.data()},
		{"kube-rbac-proxy.yaml", b.data()},
		{"kubeconfig", kc},
		{"audit-policy.yaml", b.data()},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			got, err := render(tt.template, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(got, []byte("<no value>")) {
				t.Errorf("%s has an unset field:\n%s", tt.template, got)
			}
			checkGolden(t, tt.template, got)
		})
	}
}

func TestRenderMissingPortIsAnError(t *testing.T) {
	b := goldenBuilder(t, "all")
	d := b.data()
	delete(d.Ports, CompNginx)
	if _, err := render("nginx.conf", d); err == nil || !strings.Contains(err.Error(), "nginx") {
		t.Errorf("render without the nginx port: %v", err)
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
	for _, stacks := range []string{"all", "2x", "3x", "3x-oauth"} {
		t.Run(stacks, func(t *testing.T) {
			b := goldenBuilder(t, stacks)
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
			checkGolden(t, "components-"+stacks, describeSpecs(specs))
		})
	}
}

func TestScenarioGolden(t *testing.T) {
	b := goldenBuilder(t, "all")
	specs, err := b.specs()
	if err != nil {
		t.Fatal(err)
	}
	st := &State{Dir: goldenDir, CACert: b.certs.CA, Stacks: b.cfg.Stacks, Targets: stackTargets(b.cfg, specs)}
	for _, sp := range specs {
		st.Components = append(st.Components, sp.ComponentInfo)
	}
	got, err := scenarioYAML(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"sha256~", "password:", "client_secret:"} {
		if bytes.Contains(got, []byte(secret)) {
			t.Errorf("scenario holds a secret value (%q)", secret)
		}
	}
	checkGolden(t, "scenario.yaml", got)
}
