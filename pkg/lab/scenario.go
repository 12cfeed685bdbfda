package lab

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/stacks"
)

// Defaults of the scenario `lab scenario` prints: the demo's load.
const (
	ScenarioRequests    = 2000
	ScenarioConcurrency = 50
	ScenarioIterations  = 3
	ScenarioTimeout     = "20s"
)

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

// ScenarioYAML is the scenario of a ready lab: one target per stack with
// its layers, rungs and token source (alice's static token file for 2x, a
// password grant against Keycloak for 3x; secrets by file).
func ScenarioYAML(s *State) ([]byte, error) {
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
			if c.Role == stacks.RoleExtAuthz && len(chain) > 0 {
				chain[len(chain)-1] += " [ext_authz: " + describeLayer(c) + "]"
				continue
			}
			chain = append(chain, describeLayer(c))
		}
		fmt.Fprintf(&head, "# %s: %s\n#   %s\n", t.Name, stacks.Title(t.Stack), strings.Join(chain, " -> "))
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
	if stack == stacks.Stack2x || stack == stacks.Stack3xOAuth {
		if s.TokenPool != nil {
			return &auth.Spec{Pool: &auth.Pool{File: s.TokenPool.File}}
		}
		return &auth.Spec{File: stacks.SecretPaths(s.Dir).TokenFile(stacks.UserAlice)}
	}
	kc, _ := s.Component(stacks.Keycloak)
	sec := stacks.SecretPaths(s.Dir)
	return &auth.Spec{OIDC: &auth.OIDC{
		Issuer:           kc.URL,
		ClientID:         stacks.OIDCClientID,
		ClientSecretFile: sec.ClientSecret,
		Grant:            auth.GrantPassword,
		Username:         stacks.UserAlice,
		PasswordFile:     sec.PasswordFile(stacks.UserAlice),
		CACert:           s.CACert,
	}}
}

// describeLayer names a layer and, when it differs, the real program.
func describeLayer(c ComponentInfo) string {
	if c.Program == "" || c.Program == c.Name || strings.HasPrefix(c.Name, c.Program) {
		return c.Name
	}
	return fmt.Sprintf("%s (%s)", c.Name, c.Program)
}
