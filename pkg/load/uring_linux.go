//go:build linux

package load

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// uring is one io_uring instance, owned by one event loop's thread: its
// submission and completion rings mapped into this process. Only what the
// loop needs is here: sends, receives, polls for a connect, and a wait for
// a number of completions with a timeout.
type uring struct {
	fd      int
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqes    []uringSQE
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []uringCQE
	queued  uint32 // SQEs filled since the last submit
	minWait bool   // the kernel bounds a batched wait (IORING_FEAT_MIN_TIMEOUT)
	maps    [2][]byte

	// A wait's argument and timeout live here, on the heap, because the
	// kernel is handed the timeout's address inside the argument, which
	// the rule for pointers in a system call's arguments does not cover:
	// on a goroutine's stack it could move.
	arg uringGetEventsArg
	ts  unix.Timespec
}

// The kernel's structures (include/uapi/linux/io_uring.h).
type (
	uringSQOffsets struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	uringCQOffsets struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
	uringParams struct {
		sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
		resv                                                                   [3]uint32
		sqOff                                                                  uringSQOffsets
		cqOff                                                                  uringCQOffsets
	}
	uringSQE struct {
		opcode, flags uint8
		ioprio        uint16
		fd            int32
		off, addr     uint64
		len, opFlags  uint32
		userData      uint64
		bufIndex      uint16
		personality   uint16
		spliceFdIn    int32
		addr3, pad    uint64
	}
	uringCQE struct {
		userData uint64
		res      int32
		flags    uint32
	}
	uringGetEventsArg struct {
		sigmask   uint64
		sigmaskSz uint32
		minWaitUs uint32
		ts        uint64
	}
)

const (
	uringOpPollAdd = 6
	uringOpRecvmsg = 10
	uringOpSend    = 26

	uringSetupSingleIssuer = 1 << 12
	uringSetupDeferTaskrun = 1 << 13
	uringFeatMinTimeout    = 1 << 15

	uringEnterGetEvents = 1 << 0
	uringEnterExtArg    = 1 << 3

	uringSQELink = 1 << 2

	uringOffSQEs = 0x10000000
)

// uringSetup creates an instance; a test replaces it to force the fallback
// that a pod's seccomp profile forces (EPERM) or an old kernel (ENOSYS).
var uringSetup = func(entries uint32, p *uringParams) (int, error) {
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// uringAvailable reports whether this process may use io_uring the way the
// loop does (single issuer, deferred task work: kernel 6.1 or later, and
// not refused by a seccomp profile, as containerd's default refuses it).
func uringAvailable() bool {
	uringOnce.Do(func() {
		r, err := newUring(8)
		if err == nil {
			r.close()
		}
		uringOK = err == nil
	})
	return uringOK
}

var (
	uringOnce sync.Once
	uringOK   bool
)

// newUring sets up a ring of at least entries submissions, with room for
// twice as many completions.
func newUring(entries uint32) (*uring, error) {
	p := uringParams{flags: uringSetupSingleIssuer | uringSetupDeferTaskrun}
	fd, err := uringSetup(entries, &p)
	if err != nil {
		return nil, err
	}
	r := &uring{fd: fd, minWait: p.features&uringFeatMinTimeout != 0}
	if err := r.mapRings(&p); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *uring) mapRings(p *uringParams) error {
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*uint32(unsafe.Sizeof(uringCQE{})))
	ring, err := unix.Mmap(r.fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return err
	}
	r.maps[0] = ring
	sqes, err := unix.Mmap(r.fd, uringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(uringSQE{})),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return err
	}
	r.maps[1] = sqes
	base := unsafe.Pointer(&ring[0])
	at := func(off uint32) *uint32 { return (*uint32)(unsafe.Add(base, off)) }
	r.sqHead, r.sqTail, r.sqMask = at(p.sqOff.head), at(p.sqOff.tail), *at(p.sqOff.ringMask)
	r.cqHead, r.cqTail, r.cqMask = at(p.cqOff.head), at(p.cqOff.tail), *at(p.cqOff.ringMask)
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&sqes[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*uringCQE)(unsafe.Add(base, p.cqOff.cqes)), p.cqEntries)
	// The index array maps ring slots to SQEs one to one, once.
	array := unsafe.Slice(at(p.sqOff.array), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	return nil
}

// sqe returns the next free submission entry, zeroed; it submits what is
// queued first when the ring is full.
func (r *uring) sqe() *uringSQE {
	if *r.sqTail+r.queued-atomic.LoadUint32(r.sqHead) >= uint32(len(r.sqes)) {
		r.submit()
	}
	s := &r.sqes[(*r.sqTail+r.queued)&r.sqMask]
	*s = uringSQE{}
	r.queued++
	return s
}

// submit hands the queued entries to the kernel, which issues them now:
// a send to a socket with room is done when this returns. Entries the
// kernel does not take at once (EBUSY while completions overflow, EINTR)
// stay published and go with the next submit.
func (r *uring) submit() {
	if r.queued > 0 {
		atomic.StoreUint32(r.sqTail, *r.sqTail+r.queued)
		r.queued = 0
	}
	for {
		n := *r.sqTail - atomic.LoadUint32(r.sqHead)
		if n == 0 {
			return
		}
		took, _, e := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(n), 0, 0, 0, 0)
		if e != 0 || took == 0 {
			return
		}
	}
}

// wait blocks until want completions are there, or d ns passed; with the
// kernel's bounded wait, until want are there or minWait µs passed and one
// is. It makes the kernel run the loop's deferred work (the receives
// whose data came) either way. raw waits without telling the scheduler;
// otherwise it hands the P to the rest of the process meanwhile.
func (r *uring) wait(want uint32, d int64, minWaitUs uint32, raw bool) error {
	r.ts = unix.NsecToTimespec(max(d, 0))
	r.arg = uringGetEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
	if r.minWait && want > 1 {
		r.arg.minWaitUs = minWaitUs
	}
	call := unix.Syscall6
	if d == 0 || raw {
		call = unix.RawSyscall6
	}
	_, _, e := call(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 0, uintptr(want),
		uringEnterGetEvents|uringEnterExtArg, uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg))
	if e != 0 && e != unix.ETIME && e != unix.EINTR && e != unix.EAGAIN && e != unix.EBUSY {
		return e
	}
	return nil
}

// reap hands each completion to f and frees its slot.
func (r *uring) reap(f func(userData uint64, res int32)) {
	head, tail := *r.cqHead, atomic.LoadUint32(r.cqTail)
	for ; head != tail; head++ {
		c := &r.cqes[head&r.cqMask]
		ud, res := c.userData, c.res
		atomic.StoreUint32(r.cqHead, head+1)
		f(ud, res)
	}
}

func (r *uring) close() {
	for i, m := range r.maps {
		if m != nil {
			unix.Munmap(m)
			r.maps[i] = nil
		}
	}
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}
