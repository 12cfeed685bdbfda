//go:build linux

package load

import (
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring path (IOUring) runs the event loop's state machine with its
// system calls batched: the requests a round of completions sends are
// submitted in one call, and one wait makes the kernel run every receive
// whose data came. The kernel wakes the loop only when a batch of answers
// is there (a sixth of those awaited, at most 16) or, on kernels that bound
// the wait, after uringBatchWait and one answer. Batching moves when the
// loop looks at an answer, not what it measures: each socket carries the
// kernel's receive timestamp of the bytes read, and a response ends at the
// arrival of its last byte. A connection whose answer waits in a batch
// sends its next request that much later; uringBatchWait bounds it.

// uringBatchWait bounds how long a batched wait holds an answer that is
// there, in µs.
const uringBatchWait = 50

// uringBatchDiv and uringBatchMax set a batch: the answers awaited / div,
// at most max.
const (
	uringBatchDiv = 6
	uringBatchMax = 16
)

// The operations a completion's user data names, with the connection's
// index and socket generation.
const (
	uopConnect = iota + 1
	uopSend
	uopRecv
)

// uringData is the user data of an operation op on c's current socket.
func uringData(op int, c *evconn) uint64 {
	return uint64(uint32(c.idx)) | uint64(uint32(c.gen)&0xffffff)<<32 | uint64(op)<<56
}

// rxmeta is what a receive hands the kernel besides the buffer: the
// message header and room for the receive timestamp.
type rxmeta struct {
	msg unix.Msghdr
	iov unix.Iovec
	ctl [32]byte
}

// prepare points the header at b and empties the room for the stamp.
func (m *rxmeta) prepare(b []byte) {
	m.iov.Base = &b[0]
	m.iov.SetLen(len(b))
	m.msg = unix.Msghdr{Iov: &m.iov, Iovlen: 1, Control: &m.ctl[0]}
	m.msg.SetControllen(len(m.ctl))
}

// buried keeps memory a cancelled operation may still write or read until
// its completion comes: the kernel holds raw pointers the collector
// cannot see.
type buried struct {
	buf []byte
	m   *rxmeta
	req []byte
}

// urun is the loop's body on the io_uring path.
func (l *evloop) urun() {
	runningLoops.Add(1)
	defer runningLoops.Add(-1)
	l.procs = int32(runtime.GOMAXPROCS(0))
	l.clock()
	for _, c := range l.conns {
		c.next()
	}
	for l.active > 0 {
		l.upoll()
	}
	l.drain()
}

// upoll submits what the last round queued, waits for a batch of answers
// or the next send time or deadline, and serves what completed.
func (l *evloop) upoll() {
	// What completes at submission (a connect done already, an answer
	// there already) may queue more: all of it goes out before the wait.
	for l.ring.queued > 0 {
		l.submit()
		l.ring.reap(l.ucomplete)
	}
	t := now()
	wake := l.scanAt
	if l.due.n > 0 {
		wake = min(wake, l.due.head().intended)
	}
	d := min(max(wake-t, 0), int64(loopWaitMax))
	want := uint32(1)
	if l.ring.minWait {
		want = uint32(min(max(l.recvs/uringBatchDiv, 1), uringBatchMax))
	}
	// A wait the scheduler is not told of spares its hand-off of the P
	// and the P's return, but holds the P: only while the running loops
	// leave at least one to the rest of the process (other attacks'
	// goroutines, a collector, an in-process server).
	raw := runningLoops.Load() < l.procs
	if err := l.ring.wait(want, d, uringBatchWait, raw); err != nil {
		time.Sleep(time.Millisecond)
	}
	l.clock()
	l.ring.reap(l.ucomplete)
	if l.at.stop.Load() {
		l.abandonDue()
	}
	l.sendDue()
	if now() >= l.scanAt {
		l.scan()
	}
}

// submit issues the queued operations and stamps the requests among them:
// each left when the submission began, and was out when it returned.
func (l *evloop) submit() {
	if l.ring.queued == 0 && len(l.sending) == 0 {
		return
	}
	ta := now()
	l.ring.submit()
	tb := now()
	for _, c := range l.sending {
		if c.fresh {
			c.sent, c.deadline = ta, ta+int64(l.at.a.timeout)
			c.fresh = false
		}
		c.t0, c.t1 = ta, tb
	}
	clear(l.sending)
	l.sending = l.sending[:0]
}

// clock reads the offset of the wall clock, in which the kernel stamps
// received bytes, from the engine's monotonic clock.
func (l *evloop) clock() {
	t := time.Now()
	l.wallOff = t.UnixNano() - int64(t.Sub(epoch))
}

// ucomplete hands a completion to its connection; one for a socket since
// closed frees what it held.
func (l *evloop) ucomplete(ud uint64, res int32) {
	l.pend--
	c := l.conns[uint32(ud)]
	if uint32(ud>>32)&0xffffff != uint32(c.gen)&0xffffff || c.fd < 0 {
		delete(l.grave, ud)
		return
	}
	switch ud >> 56 {
	case uopConnect:
		c.pollPending = false
		c.connected()
	case uopSend:
		c.sent1(res)
	case uopRecv:
		c.received(res)
	}
	if c.state == stIdle {
		c.next()
	}
}

// drain waits, briefly, for the completions of cancelled operations, so
// that the ring closes with nothing of ours in the kernel's hands.
func (l *evloop) drain() {
	end := now() + int64(200*time.Millisecond)
	for l.pend > 0 && now() < end {
		l.submit()
		l.ring.wait(1, int64(10*time.Millisecond), 0, false)
		l.ring.reap(l.ucomplete)
	}
	if l.pend > 0 {
		// The kernel still holds buffers: keep them past the ring.
		leaked = append(leaked, l.grave)
	}
	l.ring.close()
}

// runningLoops counts the process's io_uring loops in their main loop.
var runningLoops atomic.Int32

// leaked keeps what operations never completed may still touch.
var leaked []map[uint64]buried

// uwrite queues the request in hand and a receive for its answer; they are
// not linked, so that an answer before the whole request went out (a 413
// on a large body) is read as on the other paths.
func (c *evconn) uwrite() {
	l := c.l
	flags := uint32(unix.MSG_NOSIGNAL | unix.MSG_WAITALL)
	body := !l.t.inline && len(l.t.body) > 0
	s := l.ring.sqe()
	s.opcode, s.fd, s.opFlags, s.userData = uringOpSend, int32(c.fd), flags, uringData(uopSend, c)
	s.addr, s.len = uint64(uintptr(unsafe.Pointer(&c.req[0]))), uint32(len(c.req))
	c.txPending = 1
	if body {
		s.flags = uringSQELink
		b := l.ring.sqe()
		b.opcode, b.fd, b.opFlags, b.userData = uringOpSend, int32(c.fd), flags, uringData(uopSend, c)
		b.addr, b.len = uint64(uintptr(unsafe.Pointer(&l.t.body[0]))), uint32(len(l.t.body))
		c.txPending = 2
	}
	l.pend += int(c.txPending)
	l.sending = append(l.sending, c)
	c.urecv()
}

// urecv queues a receive into the rest of the buffer.
func (c *evconn) urecv() {
	if c.n == len(c.buf) {
		c.buf = append(c.buf, make([]byte, len(c.buf))...)
	}
	m := c.rxm
	m.prepare(c.buf[c.n:])
	s := c.l.ring.sqe()
	s.opcode, s.fd, s.userData = uringOpRecvmsg, int32(c.fd), uringData(uopRecv, c)
	s.addr, s.len = uint64(uintptr(unsafe.Pointer(&m.msg))), 1
	c.rxPending = true
	c.l.recvs++
	c.l.pend++
}

// uwatchConnect waits for a non-blocking connect to finish.
func (c *evconn) uwatchConnect() {
	s := c.l.ring.sqe()
	s.opcode, s.fd, s.userData = uringOpPollAdd, int32(c.fd), uringData(uopConnect, c)
	s.opFlags = unix.POLLOUT
	c.pollPending = true
	c.l.pend++
}

// sent1 takes a send's completion: with MSG_WAITALL anything short of the
// whole buffer is a failure, and the answer may still be there to read.
func (c *evconn) sent1(res int32) {
	c.txPending--
	if res < 0 || c.werr != nil {
		if c.werr == nil {
			c.werr = &opError{"writing request", os.NewSyscallError("write", unix.Errno(-res))}
		}
	}
	if c.txPending == 0 && c.state == stWriting {
		c.state = stReading
	}
}

// received takes a receive's completion and parses the answer so far.
func (c *evconn) received(res int32) {
	c.rxPending = false
	c.l.recvs--
	if res < 0 {
		c.took(0, unix.Errno(-res))
	} else {
		c.took(int(res), 0)
	}
	gen := c.gen
	c.parse()
	// Only the same request on the same socket waits for more: a resend
	// (on a new socket, perhaps still connecting) arms its own receive.
	if gen == c.gen && (c.state == stReading || c.state == stWriting) && !c.rxPending && c.rerr == nil {
		c.urecv()
	}
}

// rxTime is when the last bytes read arrived, on the engine's clock: the
// kernel's receive timestamp, or now without one.
func (c *evconn) rxTime() int64 {
	t := now()
	m := c.rxm
	if m.msg.Controllen < uint64(len(m.ctl)) {
		return t
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&m.ctl[0]))
	if h.Level != unix.SOL_SOCKET || h.Type != unix.SO_TIMESTAMPNS {
		return t
	}
	ts := (*unix.Timespec)(unsafe.Pointer(&m.ctl[unix.SizeofCmsghdr]))
	rx := ts.Nano() - c.l.wallOff
	switch {
	case rx > t:
		return t
	case rx < c.t0-int64(time.Millisecond):
		return t // not this request's: a clock step
	case rx < c.t0:
		return c.t0
	}
	return rx
}

// bury closes the door on a socket with operations in flight: shutting it
// down makes them complete soon, and what they use is kept until then.
func (c *evconn) bury() {
	if !c.rxPending && c.txPending == 0 && !c.pollPending {
		return
	}
	c.pollPending = false
	unix.Shutdown(c.fd, unix.SHUT_RDWR)
	l := c.l
	if c.rxPending {
		l.grave[uringData(uopRecv, c)] = buried{buf: c.buf, m: c.rxm}
		c.buf, c.rxm = make([]byte, len(c.buf)), new(rxmeta)
		c.rxPending = false
		l.recvs--
	}
	if c.txPending > 0 {
		l.grave[uringData(uopSend, c)] = buried{req: c.req}
		c.req, c.ok = nil, false
		c.txPending = 0
	}
}
