package frontend

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/authbench/authbench/pkg/stacks"
)

// Reslot points the route's HAProxy, whose runtime API listens on socket,
// at the first n replicas of the oauth proxy; replica gives replica i's
// address (i from 2: the first is the backend's own server).
func Reslot(ctx context.Context, socket string, r stacks.Router, n int, replica func(i int) stacks.Endpoint) error {
	for _, c := range SlotCommands(r, n, replica) {
		if err := Command(ctx, socket, c); err != nil {
			return err
		}
	}
	return nil
}

// SlotCommands are the runtime API commands that fill r's replica slots:
// each slot up to n gets its replica's address and is set ready, the
// others are put in maintenance, so that they take no new requests before
// their replicas stop.
func SlotCommands(r stacks.Router, n int, replica func(i int) stacks.Endpoint) []string {
	var cmds []string
	for i := 2; i <= r.ReplicaSlots(); i++ {
		slot := r.Backend + "/" + r.ReplicaSlot(i)
		if i > n {
			cmds = append(cmds, "set server "+slot+" state maint")
			continue
		}
		ep := replica(i)
		cmds = append(cmds, fmt.Sprintf("set server %s addr %s port %d", slot, ep.Host, ep.Port),
			"set server "+slot+" state ready")
	}
	return cmds
}

// Command sends one command to HAProxy's runtime API; any answer but an
// empty line or a "changed" notice is its refusal, as the API answers a
// bad command with text, not with a status.
func Command(ctx context.Context, socket, cmd string) error {
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
