//go:build linux

package load

import (
	"syscall"
	"unsafe"
)

// idleState reports what an idle connection's socket holds, without
// blocking and without consuming anything: recv with MSG_PEEK|MSG_DONTWAIT
// returns EAGAIN while the connection is quiet, 0 once the server has closed
// it (EOF), bytes when it sent something nobody asked for (HAProxy's 408
// before it closes an idle keep-alive connection), or an error after a reset.
// Only EAGAIN means the connection may carry the next request.
type idleState struct {
	buf  [1]byte
	live bool
	fn   func(uintptr) bool // peek as a method value, made once
}

func (s *idleState) init() { s.fn = s.peek }

func (s *idleState) peek(fd uintptr) bool {
	_, _, errno := syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&s.buf[0])), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	s.live = errno == syscall.EAGAIN
	return true // never wait for readiness: this is a check, not a read
}

// alive reports whether rc's socket is quiet and open. A nil rc (a
// connection without a socket) is taken on trust.
func (s *idleState) alive(rc syscall.RawConn) bool {
	if rc == nil {
		return true
	}
	if s.fn == nil {
		s.init()
	}
	if err := rc.Read(s.fn); err != nil {
		return false
	}
	return s.live
}
