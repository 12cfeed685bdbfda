package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/stacks"
)

// ScaleFile is the lab's wanted replica counts (ScaleRequest), written by
// `lab scale` and applied by the platform.
const ScaleFile = "scale.json"

// ScaleRequest is ScaleFile: the replicas wanted per component (absent:
// one) and a generation that grows with each request, which State.Scaled
// echoes once the lab applied it.
type ScaleRequest struct {
	Generation int            `json:"generation"`
	Replicas   map[string]int `json:"replicas"`
}

// ReadScaleRequest reads dir's ScaleFile (an empty request when none).
func ReadScaleRequest(dir string) (ScaleRequest, error) {
	r := ScaleRequest{Replicas: map[string]int{}}
	b, err := os.ReadFile(filepath.Join(dir, ScaleFile))
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		return r, fmt.Errorf("reading %s: %w", filepath.Join(dir, ScaleFile), err)
	}
	if r.Replicas == nil {
		r.Replicas = map[string]int{}
	}
	return r, nil
}

// WriteScaleRequest replaces dir's ScaleFile atomically.
func WriteScaleRequest(dir string, r ScaleRequest) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the scale request: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, ScaleFile), append(b, '\n'), 0o644)
}

// Merge sets the request's counts from scales and advances its generation.
func (r *ScaleRequest) Merge(scales []stacks.Scale) {
	if r.Replicas == nil {
		r.Replicas = map[string]int{}
	}
	for _, s := range scales {
		r.Replicas[s.Component] = s.Replicas
	}
	r.Generation++
}

// Want is the replicas wanted of component name (one when not asked).
func (r ScaleRequest) Want(name string) int {
	if n := r.Replicas[name]; n > 0 {
		return n
	}
	return 1
}

// writeReplicas prints the scaled components of s (those with more than
// one replica), with the layer that balances them.
func writeReplicas(w io.Writer, s *State) {
	var lines []string
	for _, c := range s.Components {
		front, ok := stacks.Scalable(c.Name)
		if !ok || c.ReplicaOf != "" {
			continue
		}
		if n := s.Replicas(c.Name); n > 1 {
			lines = append(lines, fmt.Sprintf("  %s: %d replicas behind %s (%s)", c.Name, n, front.Name, front.Program))
		}
	}
	if len(lines) == 0 {
		return
	}
	sort.Strings(lines)
	fmt.Fprintf(w, "\nreplicas (lab scale):\n%s\n", strings.Join(lines, "\n"))
}
