package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/stacks"
)

// Platform runs the lab on a single-node Kubernetes; see the package doc.
type Platform struct{}

// Name is lab.PlatformKube.
func (Platform) Name() string { return lab.PlatformKube }

// ClusterDir is the cluster's directory inside a lab directory.
func ClusterDir(dir string) string { return filepath.Join(dir, "kube") }

// Kubeconfig is the path of the running kube lab's admin kubeconfig (mode
// 0600), or an error wrapping lab.ErrNotRunning.
func Kubeconfig(dir string) (string, error) {
	c, err := cluster.Open(ClusterDir(dir))
	if err != nil {
		return "", fmt.Errorf("kube lab in %s: %w: %v", dir, lab.ErrNotRunning, err)
	}
	return c.Kubeconfig(), nil
}

// Status is the lab's state, stopped when its cluster is gone.
func (Platform) Status(_ context.Context, dir string) (*lab.State, error) {
	s, err := readState(dir)
	if err != nil {
		return nil, err
	}
	_, cerr := cluster.Open(ClusterDir(dir))
	running := cerr == nil
	if !running && s.Phase != lab.PhaseFailed {
		s.Phase = lab.PhaseStopped
	}
	for i := range s.Components {
		if running {
			s.Components[i].Status = lab.StatusRunning
		} else {
			s.Components[i].Status = lab.StatusExited
		}
	}
	return s, nil
}

// Ready is the state of a lab whose cluster runs and which became ready.
func (Platform) Ready(_ context.Context, dir string) (*lab.State, error) {
	s, err := readState(dir)
	if err != nil {
		return nil, err
	}
	if _, err := cluster.Open(ClusterDir(dir)); err != nil {
		return nil, fmt.Errorf("kube lab in %s: cluster not running (last phase %s): %w", dir, s.Phase, lab.ErrNotRunning)
	}
	if s.Phase != lab.PhaseReady {
		return nil, fmt.Errorf("kube lab in %s is %s, not ready", dir, s.Phase)
	}
	return s, nil
}

// Down stops the cluster (every pod, and Keycloak and the fault proxy,
// which live in its namespace) and removes what the kubelet left in the host's cgroup
// hierarchies, also after a killed supervisor.
func (Platform) Down(ctx context.Context, dir string, out io.Writer) error {
	s, err := readState(dir)
	if errors.Is(err, lab.ErrNotRunning) {
		fmt.Fprintf(out, "no kube lab in %s\n", dir)
		return cluster.DownDir(ctx, ClusterDir(dir))
	}
	if err != nil {
		return err
	}
	t0 := time.Now()
	_, cerr := cluster.Open(ClusterDir(dir))
	if err := cluster.DownDir(ctx, ClusterDir(dir)); err != nil {
		return fmt.Errorf("stopping the kube lab's cluster: %w", err)
	}
	waitClosed(s.Ports[stacks.Keycloak], 10*time.Second)
	waitClosed(s.Ports[stacks.Toxiproxy], 10*time.Second)
	endFaults(dir, out)
	if cerr != nil {
		fmt.Fprintf(out, "kube lab in %s was not running; cleaned up\n", dir)
	} else {
		fmt.Fprintf(out, "kube lab in %s stopped in %.1fs\n", dir, time.Since(t0).Seconds())
	}
	if s.Phase != lab.PhaseFailed {
		s.Phase = lab.PhaseStopped
	}
	return writeState(dir, s)
}

// endFaults logs the end of every fault in force: the fault proxy stopped
// (or a previous lab's died) with them.
func endFaults(dir string, out io.Writer) {
	if err := lab.EndFaults(dir, time.Now()); err != nil {
		fmt.Fprintf(out, "warning: %v\n", err)
	}
}

func readState(dir string) (*lab.State, error) { return lab.ReadState(dir) }

func writeState(dir string, s *lab.State) error { return lab.WriteState(dir, s) }

// writeFile writes through the one atomic writer, so readers never see
// half a file.
func writeFile(path string, b []byte, mode os.FileMode) error {
	if err := atomicfile.Write(path, b, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
