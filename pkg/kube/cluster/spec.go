package cluster

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/authbench/authbench/pkg/atomicfile"
)

// SupervisorArg is the argument that routes a program to Supervise: the
// default Options.Supervisor runs `SELF SupervisorArg DIR`.
const SupervisorArg = "__authbench-kube-supervisor"

// spec is what the supervisor runs, written by Up to DIR/supervisor.json.
type spec struct {
	Dir        string      `json:"dir"`
	Sysctls    []string    `json:"sysctls"` // /proc/sys files shadowed inside the namespace
	Components []component `json:"components"`
}

// component is one program of the cluster.
type component struct {
	Name  string   `json:"name"`
	Argv  []string `json:"argv"`
	After []string `json:"after,omitempty"` // components that must be ready first
	// Ready is an http(s) URL answering 200 when the component is ready, or
	// unix:PATH for a socket accepting connections.
	Ready string `json:"ready"`
}

func writeSpec(path string, s spec) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}

func readSpec(path string) (spec, error) {
	var s spec
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
