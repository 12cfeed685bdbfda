//go:build linux

package load

import (
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/authbench/authbench/pkg/plan"
)

// refuseUring makes io_uring_setup fail with errno for the rest of the
// test, as containerd's default seccomp profile (EPERM) or an old kernel
// (ENOSYS) does, and forgets the probe's answer on both ends.
func refuseUring(t *testing.T, errno unix.Errno) {
	old := uringSetup
	uringSetup = func(uint32, *uringParams) (int, error) { return -1, errno }
	uringOnce = sync.Once{}
	t.Cleanup(func() {
		uringSetup = old
		uringOnce = sync.Once{}
	})
}

// TestIOUringRefused forces the fallback: where io_uring is refused, auto
// and a forced io_uring both run on epoll, count every request, and say so.
func TestIOUringRefused(t *testing.T) {
	for _, errno := range []unix.Errno{unix.EPERM, unix.ENOSYS} {
		for _, tc := range []struct {
			name string
			opts []Option
		}{{"auto", nil}, {"forced", []Option{WithIOPath(IOUring)}}} {
			t.Run(errno.Error()+"/"+tc.name, func(t *testing.T) {
				refuseUring(t, errno)
				s, served := countingServer(t)
				a := attacker(t, plan.Client{}, tc.opts...)
				m, r := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 500, Concurrency: 5})
				if r.Successes != 500 || served.Load() != 500 {
					t.Errorf("successes %d, server saw %d, want 500", r.Successes, served.Load())
				}
				if m.IOPath() != IOEpoll || r.IOPath != string(IOEpoll) {
					t.Errorf("ran on %q (result %q), want epoll", m.IOPath(), r.IOPath)
				}
			})
		}
	}
}

// TestIOUringRefusedInLoop covers a ring refused after the probe allowed
// one (a file limit reached meanwhile): the loop runs on epoll and the
// result says epoll.
func TestIOUringRefusedInLoop(t *testing.T) {
	if !uringAvailable() {
		t.Skip("no io_uring here: TestIOUringRefused covers the fallback")
	}
	old := uringSetup
	uringSetup = func(uint32, *uringParams) (int, error) { return -1, unix.EMFILE }
	t.Cleanup(func() { uringSetup = old })
	s, served := countingServer(t)
	a := attacker(t, plan.Client{}, WithIOPath(IOUring))
	m, r := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 300, Concurrency: 4})
	if r.Successes != 300 || served.Load() != 300 || m.IOPath() != IOEpoll {
		t.Errorf("successes %d, server saw %d, on %q; want 300, 300, epoll", r.Successes, served.Load(), m.IOPath())
	}
}
