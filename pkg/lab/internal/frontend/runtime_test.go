package frontend

import (
	"bufio"
	"context"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

func TestSlotCommands(t *testing.T) {
	r := stacks.Router{Backend: "be"}
	replica := func(i int) stacks.Endpoint { return stacks.Endpoint{Host: stacks.Loopback, Port: 9000 + i} }
	tests := []struct {
		name string
		n    int
		head []string
	}{
		{"one replica: every slot in maintenance", 1, []string{"set server be/be-2 state maint", "set server be/be-3 state maint"}},
		{"two replicas", 2, []string{"set server be/be-2 addr 127.0.0.1 port 9002", "set server be/be-2 state ready", "set server be/be-3 state maint"}},
		{"three replicas", 3, []string{"set server be/be-2 addr 127.0.0.1 port 9002", "set server be/be-2 state ready",
			"set server be/be-3 addr 127.0.0.1 port 9003", "set server be/be-3 state ready", "set server be/be-4 state maint"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SlotCommands(r, tc.n, replica)
			if want := r.ReplicaSlots() - 1 + tc.n - 1; len(got) != want {
				t.Errorf("%d commands, want %d", len(got), want)
			}
			if len(got) < len(tc.head) || !slices.Equal(got[:len(tc.head)], tc.head) {
				t.Errorf("commands start %q, want %q", got, tc.head)
			}
			if last := got[len(got)-1]; tc.n < r.ReplicaSlots() && !strings.HasSuffix(last, "state maint") {
				t.Errorf("last command %q, want the last slot in maintenance", last)
			}
		})
	}
}

// runtimeAPI answers each connection's command with answer, as HAProxy's
// runtime API does, and records the commands.
func runtimeAPI(t *testing.T, answer string) (string, chan string) {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "admin.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 100)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(conn).ReadString('\n')
			got <- strings.TrimSpace(line)
			_, _ = conn.Write([]byte(answer))
			conn.Close()
		}
	}()
	return socket, got
}

func TestCommand(t *testing.T) {
	tests := []struct {
		answer string
		ok     bool
	}{
		{"\n", true},
		{"IP changed from '127.0.0.1' to '127.0.0.1', port changed from '0' to '9002' by 'stats socket command'\n", true},
		{"no need to change the addr\n", true},
		{"No such server.\n", false},
	}
	for _, tc := range tests {
		socket, got := runtimeAPI(t, tc.answer)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := Command(ctx, socket, "set server be/be-2 state ready")
		cancel()
		if (err == nil) != tc.ok {
			t.Errorf("answer %q: error %v, want ok %v", tc.answer, err, tc.ok)
		}
		if cmd := <-got; cmd != "set server be/be-2 state ready" {
			t.Errorf("API got %q", cmd)
		}
	}
}

func TestReslotSendsEverySlotCommand(t *testing.T) {
	socket, got := runtimeAPI(t, "\n")
	r := stacks.Router{Backend: "be"}
	replica := func(i int) stacks.Endpoint { return stacks.Endpoint{Host: stacks.Loopback, Port: 9000 + i} }
	if err := Reslot(context.Background(), socket, r, 2, replica); err != nil {
		t.Fatal(err)
	}
	for _, want := range SlotCommands(r, 2, replica) {
		if cmd := <-got; cmd != want {
			t.Fatalf("API got %q, want %q", cmd, want)
		}
	}
}
