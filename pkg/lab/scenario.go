package lab

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/pkg/auth"
)

// Defaults of the scenario `lab scenario` prints: the demo's load.
const (
	ScenarioRequests    = 2000
	ScenarioConcurrency = 50
	ScenarioIterations  = 3
	ScenarioTimeout     = "20s"
)

// Target names in the lab's scenario.
const (
	Target2x = "lab-2x"
	Target3x = "lab-3x"
	// Target3xOAuth is stack 3x-oauth's target.
	Target3xOAuth = "lab-3x-oauth"
)

// TargetName is a stack's target in the lab's scenario ("" for an unknown
// stack).
func TargetName(stack string) string {
	return map[string]string{Stack2x: Target2x, Stack3x: Target3x, Stack3xOAuth: Target3xOAuth}[stack]
}

// stackTargets describes each stack as a target: its outer URL and its
// layers, from the client inwards, with their own entry points.
func stackTargets(c Config, specs []*spec) []StackTarget {
	url := map[string]string{}
	for _, sp := range specs {
		url[sp.Name] = sp.URL
	}
	mk := func(name, stack string, layers ...string) StackTarget {
		t := StackTarget{Name: name, Stack: stack, URL: url[layers[0]]}
		for _, l := range layers {
			t.Layers = append(t.Layers, Rung{Layer: l, URL: url[l]})
		}
		return t
	}
	var out []StackTarget
	if c.has(Stack2x) {
		out = append(out, mk(Target2x, Stack2x, CompHAProxy, CompOAuthProxy, CompEcho2x))
	}
	if c.has(Stack3x) {
		out = append(out, mk(Target3x, Stack3x, CompNginx, CompOAuth2Proxy, CompKubeRBACProxy, CompEcho3x))
	}
	if c.has(Stack3xOAuth) {
		out = append(out, mk(Target3xOAuth, Stack3xOAuth, CompNginxOAuth, CompKubeAuthProxyOAuth,
			CompKubeRBACProxyOAuth, CompEcho3xOAuth))
	}
	return out
}

// labNotes say which real component plays which role, for status and reports.
func labNotes(specs []*spec) []string {
	var notes []string
	for _, sp := range specs {
		if sp.Plays != "" {
			notes = append(notes, fmt.Sprintf("%s: %s %s plays %s", sp.Name, sp.Program, sp.Version, sp.Plays))
		}
	}
	for _, sp := range specs {
		switch sp.Name {
		case CompHAProxy:
			notes = append(notes, "stack 2x: HAProxy terminates the client's TLS and re-encrypts to the oauth proxy (kube-rbac-proxy serves TLS only); static bearer tokens from --token-auth-file play OpenShift OAuth tokens")
		case CompNginx:
			notes = append(notes, "stack 3x: nginx stands in for Envoy (no Envoy binary here): auth_request sends the original method and path to oauth2-proxy without the body over kept-alive connections, and only a 200 allows (other 2xx become 403)")
		case CompOAuth2Proxy:
			notes = append(notes, "stack 3x: oauth2-proxy runs with --upstream=static://200 --skip-jwt-bearer-tokens --force-json-errors, verifying Keycloak JWTs locally against the realm's JWKS; kube-rbac-proxy then does TokenReview (the apiserver verifies the OIDC token) and SubjectAccessReview")
		case CompKubeAuthProxyOAuth:
			notes = append(notes, fmt.Sprintf("stack 3x-oauth: kube-auth-proxy cannot be built from the module mirror, so kube-rbac-proxy plays it as the ext_authz service (nginx auth_request over TLS), in front of %s answering 200; it validates the opaque sha256~ token with a TokenReview and authorises it with a SubjectAccessReview, then the %s sidecar does both again. Caches (both proxies): %s. Their API clients run at %d QPS, burst %d, instead of client-go's 5/10, so that cache misses measure the API server",
				CompAuthzOKOAuth, CompKubeRBACProxyOAuth, KubeRBACProxyCache, OAuthKubeAPIQPS, OAuthKubeAPIBurst))
		}
	}
	return notes
}

// scenarioFile is the YAML layout pkg/scenario reads.
type scenarioFile struct {
	Name string `yaml:"name"`
	// Lab is the lab's directory: a run of the scenario observes this lab.
	Lab     string           `yaml:"lab"`
	Targets []scenarioTarget `yaml:"targets"`
	Load    scenarioLoad     `yaml:"load"`
	Client  scenarioClient   `yaml:"client"`
	// Observe and Prometheus sample a kube lab's pods through its
	// Prometheus (cAdvisor), with the default container profile.
	Observe    []scenarioObserve `yaml:"observe,omitempty"`
	Prometheus *LabPrometheus    `yaml:"prometheus,omitempty"`
}

type scenarioObserve struct {
	Name      string `yaml:"name"`
	Role      string `yaml:"role,omitempty"`
	Namespace string `yaml:"namespace"`
	Pod       string `yaml:"pod"`
	Container string `yaml:"container"`
}

type scenarioTarget struct {
	Name   string     `yaml:"name"`
	URL    string     `yaml:"url"`
	Method string     `yaml:"method"`
	Token  *auth.Spec `yaml:"token"`
	Layers []string   `yaml:"layers"`
	Rungs  []Rung     `yaml:"rungs"`
}

type scenarioLoad struct {
	Requests    int `yaml:"requests"`
	Concurrency int `yaml:"concurrency"`
	Iterations  int `yaml:"iterations"`
}

type scenarioClient struct {
	CACert  string `yaml:"cacert"`
	Timeout string `yaml:"timeout"`
}

// scenarioYAML is the scenario of a ready lab: one target per stack with
// its layers, rungs and token source (alice's static token file for 2x, a
// password grant against Keycloak for 3x; secrets by file).
func scenarioYAML(s *State) ([]byte, error) {
	f := scenarioFile{
		Name:   "lab",
		Lab:    s.Dir,
		Load:   scenarioLoad{Requests: ScenarioRequests, Concurrency: ScenarioConcurrency, Iterations: ScenarioIterations},
		Client: scenarioClient{CACert: s.CACert, Timeout: ScenarioTimeout},
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# Scenario for the authbench lab in %s (from `authbench lab scenario`).\n", s.Dir)
	for _, t := range s.Targets {
		st := scenarioTarget{Name: t.Name, URL: t.URL, Method: "GET", Token: tokenFor(s, t.Stack), Rungs: t.Layers}
		var chain []string
		for _, l := range t.Layers {
			st.Layers = append(st.Layers, l.Layer)
			c, _ := s.Component(l.Layer)
			if c.Role == "ext-authz" && len(chain) > 0 {
				chain[len(chain)-1] += " [ext_authz: " + describeLayer(c) + "]"
				continue
			}
			chain = append(chain, describeLayer(c))
		}
		fmt.Fprintf(&head, "# %s: %s\n#   %s\n", t.Name, stackTitle(t.Stack), strings.Join(chain, " -> "))
		f.Targets = append(f.Targets, st)
	}
	if s.Prometheus != nil {
		f.Prometheus = s.Prometheus
		for _, c := range s.Components {
			if c.Namespace != "" {
				f.Observe = append(f.Observe, scenarioObserve{Name: c.Name, Role: c.Role,
					Namespace: c.Namespace, Pod: c.Pod, Container: c.Container})
			}
		}
	}
	var b bytes.Buffer
	b.WriteString(head.String())
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("encoding scenario: %w", err)
	}
	return b.Bytes(), nil
}

// tokenFor is a stack's token source: references to files, never values.
func tokenFor(s *State, stack string) *auth.Spec {
	if stack == Stack2x || stack == Stack3xOAuth {
		if s.TokenPool != nil {
			return &auth.Spec{Pool: &auth.Pool{File: s.TokenPool.File}}
		}
		return &auth.Spec{File: secretPaths(s.Dir).TokenFile(UserAlice)}
	}
	kc, _ := s.Component(CompKeycloak)
	sec := secretPaths(s.Dir)
	return &auth.Spec{OIDC: &auth.OIDC{
		Issuer:           kc.URL,
		ClientID:         OIDCClientID,
		ClientSecretFile: sec.ClientSecret,
		Grant:            auth.GrantPassword,
		Username:         UserAlice,
		PasswordFile:     sec.PasswordFile(UserAlice),
		CACert:           s.CACert,
	}}
}

func stackTitle(stack string) string {
	switch stack {
	case Stack2x:
		return "2x, Route + oauth-proxy"
	case Stack3xOAuth:
		return "3x-oauth, Gateway + kube-auth-proxy (OpenShift OAuth tokens, TokenReview) + kube-rbac-proxy"
	}
	return "3x, Gateway + kube-auth-proxy + kube-rbac-proxy"
}

// describeLayer names a layer and, when it differs, the real program.
func describeLayer(c ComponentInfo) string {
	if c.Program == "" || c.Program == c.Name || strings.HasPrefix(c.Name, c.Program) {
		return c.Name
	}
	return fmt.Sprintf("%s (%s)", c.Name, c.Program)
}
