//go:build linux

package load

import (
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event-loop path (IOEpoll) gives each of a few OS threads a share of
// the connections and one epoll instance, as wrk does: a request is one
// write, its response one read after epoll said it is there, and one
// epoll_wait serves every connection that became readable meanwhile. The
// netpoll path instead reads before the answer is there (EAGAIN), parks the
// goroutine and wakes it through the scheduler, for every response.

// epollAvailable reports whether this kernel gives us an epoll instance.
func epollAvailable() bool {
	epollOnce.Do(func() {
		fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err == nil {
			unix.Close(fd)
		}
		epollOK = err == nil
	})
	return epollOK
}

var (
	epollOnce sync.Once
	epollOK   bool
)

// loopWaitMax bounds one wait, so that a cancelled attack stops waiting
// for its next open-loop send time within it.
const loopWaitMax = 20 * time.Millisecond

// evloop runs a share of an attack's workers, one connection each.
type evloop struct {
	at     *attack
	t      *target
	ep     int
	conns  []*evconn
	due    ring  // open model: waiting for their send time, earliest first
	active int   // conns not finished
	scanAt int64 // engine time of the earliest deadline that may be due
	events [256]unix.EpollEvent
	noPw2  bool // epoll_pwait2 refused: millisecond waits

	// The io_uring path: the ring (nil on epoll), the connections whose
	// request goes out with the next submission, receives awaited,
	// operations in flight, what closed sockets' operations hold, and the
	// wall clock's offset.
	ring    *uring
	sending []*evconn
	recvs   int
	pend    int
	procs   int32 // GOMAXPROCS when the loop started
	grave   map[uint64]buried
	wallOff int64
}

// runLoops runs the attack's workers on one loop per two Ps (at least one,
// at most one per worker). The client shares the machine with what it
// measures: a loop that runs out of ready connections sleeps, and each wake
// is a context switch on both sides. Fewer, fuller loops batch more: on two
// cores one loop cost 0.8x the client CPU per request of two, at the same
// rate, with a fifth of the context switches.
func runLoops(at *attack, t *target) {
	n := min(max(runtime.GOMAXPROCS(0)/2, 1), len(at.workers))
	loops := make([]*evloop, 0, n)
	for i := range n {
		l, err := newLoop(at, t)
		if err != nil {
			// No epoll instance (fd limit): the rest run as goroutines.
			runGoroutines(at, t, at.workers[i:], loops)
			return
		}
		loops = append(loops, l)
	}
	for i, w := range at.workers {
		l := loops[i%n]
		l.conns = append(l.conns, newEvconn(l, w, len(l.conns)))
	}
	runGoroutines(at, t, nil, loops)
}

// runGoroutines runs loops and, on the netpoll path, workers that found no
// loop, and waits for all of them.
func runGoroutines(at *attack, t *target, rest []*worker, loops []*evloop) {
	var wg sync.WaitGroup
	for _, w := range rest {
		w.doer = newH1(at.a, t, &w.tot.phases)
		wg.Go(w.run)
	}
	for _, l := range loops {
		wg.Go(l.run)
	}
	wg.Wait()
}

func newLoop(at *attack, t *target) (*evloop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &evloop{at: at, t: t, ep: ep, scanAt: 1<<63 - 1}, nil
}

func (l *evloop) run() {
	// The loop blocks in epoll_pwait2 and makes short system calls
	// otherwise: its own thread spares the scheduler's hand-offs.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The kernel lets a timed wait end up to the thread's timer slack (50
	// µs by default) late, which every open-loop send would inherit; the
	// netpoll path's timerfd has none. The thread is ours until unlocked.
	if slack, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil {
		unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
		defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(slack), 0, 0, 0)
	}
	l.active = len(l.conns)
	l.due.buf = make([]*evconn, len(l.conns))
	if l.at.path == IOUring {
		l.openRing()
	}
	if l.ring != nil {
		l.urun()
	} else {
		for _, c := range l.conns {
			c.next()
		}
		for l.active > 0 {
			l.poll()
		}
	}
	unix.Close(l.ep)
	for _, c := range l.conns {
		c.release()
	}
}

// openRing sets up the loop's ring on its own thread, which the kernel
// then holds to be the ring's only submitter. Without one the loop stays
// on epoll.
func (l *evloop) openRing() {
	r, err := newUring(uint32(min(max(4*len(l.conns), 64), 32768)))
	if err != nil {
		l.at.ringRefused.Store(true)
		return
	}
	l.ring, l.grave = r, map[uint64]buried{}
}

// poll waits for readiness, the next send time or deadline, and serves
// what is ready.
func (l *evloop) poll() {
	t := now()
	wake := l.scanAt
	if l.due.n > 0 {
		wake = min(wake, l.due.head().intended)
	}
	d := min(max(wake-t, 0), int64(loopWaitMax))
	n, err := l.wait(d)
	if err != nil && err != unix.EINTR {
		// Cannot happen with valid arguments; do not spin on it.
		time.Sleep(time.Millisecond)
	}
	l.clock()
	for i := range n {
		ev := &l.events[i]
		c := l.conns[ev.Fd]
		if ev.Pad == c.gen && c.fd >= 0 {
			c.ready(ev.Events)
		}
	}
	if l.at.stop.Load() {
		l.abandonDue()
	}
	l.sendDue()
	if now() >= l.scanAt {
		l.scan()
	}
}

// wait is epoll_pwait2 with a nanosecond timeout (d, ns), so that open-loop
// sends are not up to a millisecond late; epoll_wait where it is refused.
// Under load events are usually waiting already: a first look that cannot
// block skips the scheduler's bookkeeping of a blocking system call (and
// the hand-off of this thread's P that may follow); only an empty look
// blocks, as a system call the scheduler knows of, so that other
// goroutines (an in-process server, a token refresher) keep their CPU.
func (l *evloop) wait(d int64) (int, error) {
	if !l.noPw2 {
		var zero unix.Timespec
		if n, e := l.pwait2(unix.RawSyscall6, &zero); e == 0 && n > 0 || d == 0 {
			return n, errnoErr(e)
		}
		ts := unix.NsecToTimespec(d)
		n, e := l.pwait2(unix.Syscall6, &ts)
		if e != unix.ENOSYS && e != unix.EPERM {
			return n, errnoErr(e)
		}
		l.noPw2 = true
	}
	ms := int((d + int64(time.Millisecond) - 1) / int64(time.Millisecond))
	return unix.EpollWait(l.ep, l.events[:], ms)
}

func (l *evloop) pwait2(call func(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err unix.Errno), ts *unix.Timespec) (int, unix.Errno) {
	r, _, e := call(unix.SYS_EPOLL_PWAIT2, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])),
		uintptr(len(l.events)), uintptr(unsafe.Pointer(ts)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// sendDue sends every waiting request whose time has come.
func (l *evloop) sendDue() {
	for l.due.n > 0 && l.due.head().intended <= now() {
		c := l.due.pop()
		c.state = stIdle
		c.begin()
		c.next()
	}
}

// abandonDue drops the requests still waiting when the attack is stopped.
func (l *evloop) abandonDue() {
	if l.due.n > 0 {
		l.at.interrupted.Store(true)
	}
	for l.due.n > 0 {
		l.due.pop().finish()
	}
}

// ring is a FIFO of connections, one slot per connection of the loop: the
// open model's send times are handed out in order, so the earliest is first.
type ring struct {
	buf  []*evconn
	h, n int
}

func (r *ring) head() *evconn { return r.buf[r.h] }

func (r *ring) push(c *evconn) {
	r.buf[(r.h+r.n)%len(r.buf)] = c
	r.n++
}

func (r *ring) pop() *evconn {
	c := r.buf[r.h]
	r.buf[r.h] = nil
	r.h = (r.h + 1) % len(r.buf)
	r.n--
	return c
}

// scan fails the requests whose deadline has passed and finds the next.
func (l *evloop) scan() {
	t := now()
	next := int64(1<<63 - 1)
	for _, c := range l.conns {
		if !c.inFlight() {
			continue
		}
		if c.deadline <= t {
			c.timeout()
			c.next()
			if !c.inFlight() {
				continue
			}
		}
		next = min(next, c.deadline)
	}
	l.scanAt = max(next, t+int64(time.Millisecond))
}

// watch sets the events epoll reports for c's socket.
func (l *evloop) watch(c *evconn, op int, events uint32) error {
	ev := unix.EpollEvent{Events: events, Fd: int32(c.idx), Pad: c.gen}
	return unix.EpollCtl(l.ep, op, c.fd, &ev)
}
