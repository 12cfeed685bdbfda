// Package ports chooses the lab's TCP ports on 127.0.0.1: pinned ones,
// the previous lab's when still free (ports.json), else fresh free ones.
package ports

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"github.com/authbench/authbench/pkg/stacks"
)

// File is where the ports in use are recorded, in the lab directory.
const File = "ports.json"

// Loopback is the only address the lab binds or targets.
const Loopback = stacks.Loopback

// ErrInUse reports a port some other program already holds.
var ErrInUse = errors.New("port already in use")

// CheckFree binds the port for a moment to learn whether it is free.
func CheckFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(Loopback, strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("%s:%d: %w", Loopback, port, ErrInUse)
		}
		return fmt.Errorf("checking %s:%d: %w", Loopback, port, err)
	}
	return l.Close()
}

// Allocate gives every name a port on 127.0.0.1: the pinned one (which
// must be free), else the previous one when still free (so URLs and
// scenarios survive a restart), else a fresh one from the kernel. Fresh
// ports are held open until all are chosen so no two names share one.
func Allocate(names []string, pinned, previous map[string]int) (map[string]int, error) {
	out := map[string]int{}
	used := map[int]string{}
	take := func(name string, port int) error {
		if other, dup := used[port]; dup {
			return fmt.Errorf("port %d wanted by both %s and %s", port, other, name)
		}
		used[port], out[name] = name, port
		return nil
	}
	var fresh []string
	for _, name := range names {
		if p, ok := pinned[name]; ok && p > 0 {
			if err := CheckFree(p); err != nil {
				return nil, fmt.Errorf("port for %s: %w", name, err)
			}
			if err := take(name, p); err != nil {
				return nil, err
			}
			continue
		}
		fresh = append(fresh, name)
	}
	var rest []string
	for _, name := range fresh {
		if p := previous[name]; p > 0 && used[p] == "" && CheckFree(p) == nil {
			if err := take(name, p); err != nil {
				return nil, err
			}
			continue
		}
		rest = append(rest, name)
	}
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for _, name := range rest {
		for {
			l, err := net.Listen("tcp", net.JoinHostPort(Loopback, "0"))
			if err != nil {
				return nil, fmt.Errorf("choosing a port for %s: %w", name, err)
			}
			held = append(held, l)
			p := l.Addr().(*net.TCPAddr).Port
			if used[p] == "" {
				_ = take(name, p)
				break
			}
		}
	}
	return out, nil
}

// ValidatePinned rejects pinned names that no component uses.
func ValidatePinned(pinned map[string]int, names []string) error {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var bad []string
	for n, p := range pinned {
		if !known[n] {
			bad = append(bad, n)
		}
		if p < 1 || p > 65535 {
			return fmt.Errorf("port for %s: %d is not a TCP port", n, p)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		all := append([]string(nil), names...)
		sort.Strings(all)
		return fmt.Errorf("unknown port name(s) %v; known: %v", bad, all)
	}
	return nil
}

func Read(dir string) map[string]int {
	var m map[string]int
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}
