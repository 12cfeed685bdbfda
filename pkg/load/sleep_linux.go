//go:build linux

package load

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// fineTimer waits the last moments before an open-loop send with
// microsecond precision without holding a thread or its P.
//
// Go's timers wake an idle process up to a millisecond late (the netpoller
// sleeps in whole milliseconds), which would add a millisecond of the
// client's own making to every corrected latency. The engine used to fix
// that with a blocking nanosleep, but a goroutine in a blocking syscall
// keeps its P until sysmon retakes it, which can take milliseconds: with
// GOMAXPROCS=2 and many workers waiting, the goroutines reading responses
// could not run and the uncorrected latency grew a tail of its own making.
// A timerfd in the netpoller has neither problem: the goroutine parks like
// on a socket, and epoll wakes when the timer fires, to the microsecond.
type fineTimer struct {
	f   *os.File // nil: timerfd unavailable, Go's timer is used instead
	fd  uintptr  // f's descriptor, valid until close
	buf [8]byte
}

func newFineTimer() *fineTimer {
	const clockMonotonic, tfdNonblock, tfdCloexec = 1, syscall.O_NONBLOCK, syscall.O_CLOEXEC
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return &fineTimer{}
	}
	return &fineTimer{f: os.NewFile(fd, "timerfd"), fd: fd}
}

// sleep waits d nanoseconds (a few milliseconds at most: it cannot be
// cancelled).
func (t *fineTimer) sleep(d int64) {
	if d <= 0 {
		return
	}
	if t.f == nil {
		time.Sleep(time.Duration(d))
		return
	}
	spec := [2]syscall.Timespec{{}, syscall.NsecToTimespec(d)} // interval, value
	if err := t.arm(&spec); err != nil {
		time.Sleep(time.Duration(d))
		return
	}
	// The read parks the goroutine in the netpoller until the timer fires.
	if _, err := t.f.Read(t.buf[:]); err != nil {
		time.Sleep(time.Duration(d))
	}
}

func (t *fineTimer) arm(spec *[2]syscall.Timespec) error {
	_, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0, uintptr(unsafe.Pointer(spec)), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

func (t *fineTimer) close() {
	if t.f != nil {
		t.f.Close()
	}
}
