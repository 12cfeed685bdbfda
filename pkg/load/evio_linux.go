//go:build linux

package load

import (
	"io"
	"net"
	"net/netip"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// connect takes an idle connection from the pool or starts a dial. True
// means connected now; otherwise the connect is under way or failed (the
// request completed).
func (c *evconn) connect() bool {
	t := c.l.t
	if !t.closeConn && c.attempt == 0 {
		// As h1: a resend dials, the pool may hold more closed connections.
		if nc := c.l.at.a.pool.get(t.key); nc != nil {
			if fd, err := detach(nc); err == nil && c.attach(fd, 1) == nil {
				return true
			}
		}
	}
	addrs, err := resolveHost(t, c.ph, wall(c.deadline))
	if err != nil {
		c.complete(0, &opError{"resolving host", err})
		return false
	}
	c.addrs, c.addr, c.dialErr = addrs, 0, nil
	c.dialT0 = now()
	return c.dial()
}

// dial tries the remaining addresses. True means connected now.
func (c *evconn) dial() bool {
	for ; c.addr < len(c.addrs); c.addr++ {
		fd, pending, err := dialStart(c.addrs[c.addr], c.l.t.port)
		if err != nil {
			c.dialErr = err
			continue
		}
		if err := c.attach(fd, 0); err != nil {
			c.dialErr = err
			continue
		}
		if !pending {
			c.ph[phaseConnect].add(now() - c.dialT0)
			return true
		}
		c.state = stConnecting
		if c.l.ring != nil {
			c.uwatchConnect()
			return false
		}
		if err := c.l.watch(c, unix.EPOLL_CTL_MOD, unix.EPOLLOUT); err != nil {
			c.drop()
			c.dialErr = err
			continue
		}
		return false
	}
	c.drop()
	c.complete(0, &opError{"connecting", &net.OpError{Op: "dial", Net: "tcp",
		Err: os.NewSyscallError("connect", c.dialErr)}})
	return false
}

// connected finishes a non-blocking connect and sends the request.
func (c *evconn) connected() {
	errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err == nil && errno != 0 {
		err = unix.Errno(errno)
	}
	if err != nil {
		c.drop()
		c.dialErr = err
		c.addr++
		if !c.dial() {
			return
		}
	} else {
		c.ph[phaseConnect].add(now() - c.dialT0)
		if c.l.ring != nil {
			c.write()
			return
		}
		if err := c.l.watch(c, unix.EPOLL_CTL_MOD, unix.EPOLLIN|unix.EPOLLRDHUP); err != nil {
			c.drop()
			c.complete(0, &opError{"connecting", err})
			return
		}
	}
	c.write()
}

// attach makes fd c's connection and watches it for input.
func (c *evconn) attach(fd, used int) error {
	c.fd, c.used = fd, used
	c.gen++
	// The kernel stamps each segment it receives; a receive hands back the
	// stamp of the last it read, so an answer ends when it arrived, not
	// when the loop got to it.
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	if c.l.ring != nil {
		return nil
	}
	if err := c.l.watch(c, unix.EPOLL_CTL_ADD, unix.EPOLLIN|unix.EPOLLRDHUP); err != nil {
		c.drop()
		return err
	}
	return nil
}

// dialStart opens a non-blocking socket to ip:port with net.Dialer's
// options (no delay, keep-alive 30 s) and starts connecting.
func dialStart(ip netip.Addr, port uint16) (fd int, pending bool, err error) {
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip.Is4() || ip.Is4In6() {
		sa = &unix.SockaddrInet4{Port: int(port), Addr: ip.Unmap().As4()}
	} else {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(port), Addr: ip.As16()}
	}
	fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, false, err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, int(30*time.Second/time.Second))
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 15)
	switch err = unix.Connect(fd, sa); err {
	case nil:
		return fd, false, nil
	case unix.EINPROGRESS, unix.EINTR:
		return fd, true, nil
	}
	unix.Close(fd)
	return -1, false, err
}

// detach takes the socket out of a pooled net.Conn: a duplicate, still
// non-blocking (the flag belongs to the open file, which both share).
func detach(nc net.Conn) (int, error) {
	rc := rawConn(nc)
	if rc == nil {
		nc.Close()
		return -1, unix.EINVAL
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		derr = err
	}
	nc.Close()
	return fd, derr
}

// write starts writing the request in hand.
func (c *evconn) write() {
	c.state = stWriting
	c.t0 = now()
	c.reused = c.used > 0
	c.werr, c.n, c.rerr = nil, 0, nil
	if c.l.ring != nil {
		c.uwrite()
		return
	}
	c.out = [2][]byte{c.req, nil}
	if !c.l.t.inline {
		c.out[1] = c.l.t.body
	}
	c.flush()
}

// flush writes what is left of the request; on a full socket buffer it
// waits for room.
func (c *evconn) flush() {
	for i := range c.out {
		for len(c.out[i]) > 0 {
			n, e := rawSend(c.fd, c.out[i])
			switch e {
			case 0:
				c.out[i] = c.out[i][n:]
				continue
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				if !c.outWatch {
					c.outWatch = true
					c.l.watch(c, unix.EPOLL_CTL_MOD, unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLOUT)
				}
				return
			}
			// As h1: the answer may still be there to read (a 413), and
			// is the result if it is; else this error is.
			op := "writing request"
			if i == 1 {
				op = "writing request body"
			}
			c.werr = &opError{op, os.NewSyscallError("write", e)}
			c.out = [2][]byte{}
		}
	}
	if c.outWatch {
		c.outWatch = false
		c.l.watch(c, unix.EPOLL_CTL_MOD, unix.EPOLLIN|unix.EPOLLRDHUP)
	}
	c.t1 = now()
	c.state = stReading
}

// read takes what the socket has and parses the response so far.
func (c *evconn) read() {
	if c.n == len(c.buf) {
		c.buf = append(c.buf, make([]byte, len(c.buf))...)
	}
	n, e := c.recv()
	if e == unix.EAGAIN || e == unix.EINTR {
		return
	}
	c.took(n, e)
	c.parse()
}

// took records a read's outcome: n bytes that arrived at their receive
// timestamp, the end of the stream, or an error.
func (c *evconn) took(n int, e unix.Errno) {
	switch {
	case e != 0:
		c.rerr = os.NewSyscallError("read", e)
	case n == 0:
		c.rerr = io.EOF
	default:
		t := c.rxTime()
		if c.n == 0 {
			c.t2 = t
		}
		c.tEnd = t
		c.n += n
	}
}

// recv reads into the rest of the buffer with the receive timestamp.
func (c *evconn) recv() (int, unix.Errno) {
	m := c.rxm
	m.prepare(c.buf[c.n:])
	r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(c.fd), uintptr(unsafe.Pointer(&m.msg)), 0)
	return int(r), e
}

// rawSend is write without SIGPIPE. The socket is non-blocking, so the
// call is short and needs no hand-off of the scheduler's P.
func rawSend(fd int, b []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
		unix.MSG_NOSIGNAL, 0, 0)
	return int(r), e
}
