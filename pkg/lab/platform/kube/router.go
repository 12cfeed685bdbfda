package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/lab/internal/frontend"
	"github.com/authbench/authbench/pkg/stacks"
)

// runtimeDir is the host directory where the router's HAProxy makes its
// runtime API's socket (manifests.Lab.RuntimeDir).
func runtimeDir(dir string) string { return filepath.Join(dir, "router") }

func makeRuntimeDir(dir string) error {
	if err := os.MkdirAll(runtimeDir(dir), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", runtimeDir(dir), err)
	}
	return nil
}

// reslot points the route's HAProxy at the current replicas of the oauth
// proxy through its runtime API, as on the processes platform.
func reslot(ctx context.Context, dir string, ports map[string]int, n int) error {
	r := stacks.Router{Backend: manifests.RouterBackend}
	socket := filepath.Join(runtimeDir(dir), manifests.RouterSocket)
	return frontend.Reslot(ctx, socket, r, n, func(i int) stacks.Endpoint {
		return stacks.Endpoint{Host: stacks.Loopback, Port: ports[stacks.ReplicaName(stacks.OAuthProxy, i)]}
	})
}
