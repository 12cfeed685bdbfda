package lab

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
)

// loopback is the only address the lab binds or targets.
const loopback = "127.0.0.1"

// ErrPortInUse reports a port some other program already holds.
var ErrPortInUse = errors.New("port already in use")

// checkPortFree binds the port for a moment to learn whether it is free.
func checkPortFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(loopback, strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("%s:%d: %w", loopback, port, ErrPortInUse)
		}
		return fmt.Errorf("checking %s:%d: %w", loopback, port, err)
	}
	return l.Close()
}

// allocatePorts gives every name a port on 127.0.0.1: the pinned one (which
// must be free), else the previous one when still free (so URLs and
// scenarios survive a restart), else a fresh one from the kernel. Fresh
// ports are held open until all are chosen so no two names share one.
func allocatePorts(names []string, pinned, previous map[string]int) (map[string]int, error) {
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
			if err := checkPortFree(p); err != nil {
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
		if p := previous[name]; p > 0 && used[p] == "" && checkPortFree(p) == nil {
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
			l, err := net.Listen("tcp", net.JoinHostPort(loopback, "0"))
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

// validatePinned rejects pinned names that no component uses.
func validatePinned(pinned map[string]int, names []string) error {
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

func readPorts(dir string) map[string]int {
	var m map[string]int
	b, err := os.ReadFile(filepath.Join(dir, portsFile))
	if err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}
