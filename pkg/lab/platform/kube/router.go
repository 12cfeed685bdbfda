package kube

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/authbench/authbench/pkg/kube/manifests"
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
// proxy through its runtime API, as on the processes platform: each slot
// up to the count gets its replica's address and is set ready, the others
// are put in maintenance (no new requests) before their replicas go.
func reslot(ctx context.Context, dir string, ports map[string]int, n int) error {
	r := stacks.Router{Backend: manifests.RouterBackend}
	socket := filepath.Join(runtimeDir(dir), manifests.RouterSocket)
	var cmds []string
	for i := 2; i <= r.ReplicaSlots(); i++ {
		slot := r.Backend + "/" + r.ReplicaSlot(i)
		if i > n {
			cmds = append(cmds, "set server "+slot+" state maint")
			continue
		}
		cmds = append(cmds, fmt.Sprintf("set server %s addr %s port %d", slot, stacks.Loopback, ports[stacks.ReplicaName(stacks.OAuthProxy, i)]),
			"set server "+slot+" state ready")
	}
	for _, c := range cmds {
		if err := haproxyCommand(ctx, socket, c); err != nil {
			return err
		}
	}
	return nil
}

// haproxyCommand sends one command to HAProxy's runtime API; any answer
// but an empty line or a "changed" notice is its refusal.
func haproxyCommand(ctx context.Context, socket, cmd string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return fmt.Errorf("haproxy runtime API: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := io.WriteString(conn, cmd+"\n"); err != nil {
		return fmt.Errorf("haproxy runtime API: %s: %w", cmd, err)
	}
	ans, err := io.ReadAll(io.LimitReader(conn, 4<<10))
	if err != nil {
		return fmt.Errorf("haproxy runtime API: %s: %w", cmd, err)
	}
	if a := strings.TrimSpace(string(ans)); a != "" && !strings.Contains(a, "changed from") && !strings.Contains(a, "no need to change") {
		return fmt.Errorf("haproxy runtime API: %s: %s", cmd, a)
	}
	return nil
}
