package ports

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
)

func busyPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", Loopback+":0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", Loopback+":0")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return p
}

func TestCheckPortFree(t *testing.T) {
	busy := busyPort(t)
	if err := CheckFree(busy); !errors.Is(err, ErrInUse) {
		t.Errorf("CheckFree(busy %d) = %v, want ErrInUse", busy, err)
	}
	if err := CheckFree(freePort(t)); err != nil {
		t.Errorf("CheckFree(free) = %v", err)
	}
}

func TestAllocatePorts(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	t.Run("fresh ports are distinct and free", func(t *testing.T) {
		got, err := Allocate(names, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, n := range names {
			p := got[n]
			if p <= 0 || seen[p] {
				t.Fatalf("port for %s = %d (seen %v)", n, p, seen[p])
			}
			seen[p] = true
			if err := CheckFree(p); err != nil {
				t.Errorf("allocated port %d not released: %v", p, err)
			}
		}
	})
	t.Run("previous ports are reused when free", func(t *testing.T) {
		prev := freePort(t)
		got, err := Allocate(names, nil, map[string]int{"c": prev})
		if err != nil {
			t.Fatal(err)
		}
		if got["c"] != prev {
			t.Errorf("c = %d, want previous %d", got["c"], prev)
		}
	})
	t.Run("busy previous port is replaced", func(t *testing.T) {
		busy := busyPort(t)
		got, err := Allocate(names, nil, map[string]int{"c": busy})
		if err != nil {
			t.Fatal(err)
		}
		if got["c"] == busy || got["c"] == 0 {
			t.Errorf("c = %d, want a fresh port instead of busy %d", got["c"], busy)
		}
	})
	t.Run("pinned port is used", func(t *testing.T) {
		p := freePort(t)
		got, err := Allocate(names, map[string]int{"b": p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got["b"] != p {
			t.Errorf("b = %d, want pinned %d", got["b"], p)
		}
	})
	t.Run("pinned port in use is an error naming it", func(t *testing.T) {
		busy := busyPort(t)
		_, err := Allocate(names, map[string]int{"b": busy}, nil)
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), strconv.Itoa(busy)) {
			t.Errorf("error = %v, want ErrInUse naming %d", err, busy)
		}
	})
}

func TestValidatePinned(t *testing.T) {
	names := []string{"nginx", "haproxy"}
	if err := ValidatePinned(map[string]int{"nginx": 8443}, names); err != nil {
		t.Errorf("known name: %v", err)
	}
	if err := ValidatePinned(map[string]int{"envoy": 8443}, names); err == nil || !strings.Contains(err.Error(), "envoy") {
		t.Errorf("unknown name: %v", err)
	}
	if err := ValidatePinned(map[string]int{"nginx": 70000}, names); err == nil {
		t.Error("port 70000 accepted")
	}
	if names[0] != "nginx" {
		t.Error("ValidatePinned reordered its argument")
	}
}
