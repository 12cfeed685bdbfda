//go:build linux

package load

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"

	"golang.org/x/sys/unix"
)

// connState is where an evconn's request stands.
type connState uint8

const (
	stIdle       connState = iota // no request in hand
	stDue                         // in the loop's ring until its send time
	stConnecting                  // non-blocking connect under way
	stWriting                     // request partly written, waiting for room
	stReading                     // request written, response not complete
	stDone                        // the worker has nothing more to send
)

// errNeedMore ends a partial response in the read buffer: the parse is
// tried again, from the start, when more bytes arrive.
var errNeedMore = errors.New("response incomplete")

// evconn is one worker's connection on an event loop: the h1 client's
// behaviour (resends, 408s, phases, the pool) as a state machine.
type evconn struct {
	l     *evloop
	w     *worker
	ph    *phaseSet
	idx   int   // in l.conns, carried by epoll events
	fd    int   // -1: no connection
	gen   int32 // bumped per socket, so that a stale event is ignored
	state connState

	used           int    // requests completed on fd
	req            []byte // rendered request, rebuilt when the token changes
	tok            string
	ok             bool
	intended, sent int64
	deadline       int64
	t0, t1, t2     int64 // write start, write end, first response byte
	attempt        int
	reused         bool // the request went out on a used connection
	out            [2][]byte
	outWatch       bool // epoll also reports room to write
	werr           error
	buf            []byte // the response so far
	n              int
	rerr           error // how the socket ended after buf: io.EOF or an error
	feed           feedReader
	br             *bufio.Reader
	addrs          []netip.Addr
	addr           int
	dialT0         int64
	dialErr        error

	// The io_uring path's operations in flight on fd, and its stamps.
	rxm         *rxmeta
	rxPending   bool
	txPending   uint8
	pollPending bool
	fresh       bool  // sent is stamped when the request is submitted
	tEnd        int64 // the answer's last bytes arrived (0: now)
}

func newEvconn(l *evloop, w *worker, idx int) *evconn {
	return &evconn{l: l, w: w, ph: &w.tot.phases, idx: idx, fd: -1,
		buf: make([]byte, readBufSize), br: bufio.NewReaderSize(nil, readBufSize), rxm: new(rxmeta)}
}

func (c *evconn) inFlight() bool {
	return c.state == stConnecting || c.state == stWriting || c.state == stReading
}

// next claims the worker's next requests and sends them until one is in
// flight or waits for its send time, or the worker is done.
func (c *evconn) next() {
	at := c.l.at
	for c.state == stIdle {
		t, ok := at.reserve(c.w)
		if !ok {
			c.finish()
			return
		}
		c.intended = t
		if at.open && t > now() {
			c.state = stDue
			c.l.due.push(c)
			return
		}
		c.begin()
	}
}

// begin sends the request in hand; it may complete at once (a failure).
func (c *evconn) begin() {
	tok, ok := c.w.token(c.intended)
	if !ok {
		return
	}
	if err := c.render(tok); err != nil {
		t := now()
		c.w.record(c.intended, t, t, 0, err)
		return
	}
	c.sent = now()
	c.deadline = c.sent + int64(c.l.at.a.timeout)
	c.l.scanAt = min(c.l.scanAt, c.deadline)
	c.attempt = 0
	c.fresh = c.fd >= 0
	c.send()
}

func (c *evconn) render(token string) error {
	t := c.l.t
	if t.token && (!c.ok || token != c.tok) {
		if !validValue(token) {
			return &tokenError{errBadToken}
		}
		c.req, c.tok, c.ok = t.render(c.req, token), token, true
	} else if !c.ok {
		c.req, c.ok = t.render(c.req, ""), true
	}
	return nil
}

// send writes the request, connecting first when there is no connection.
func (c *evconn) send() {
	if c.fd < 0 && !c.connect() {
		return
	}
	c.write()
}

// complete records the request's outcome; the caller moves on to next.
func (c *evconn) complete(status int, err error) {
	c.state = stIdle
	end := c.tEnd
	if err != nil || end == 0 {
		end = now()
	}
	c.tEnd = 0
	c.w.record(c.intended, c.sent, end, status, err)
}

// fail ends the request in hand with err, after one resend on a fresh
// connection when a reused one turned out closed (as h1 does).
func (c *evconn) fail(err error, gotByte bool) {
	c.drop()
	if c.reused && !gotByte && c.attempt == 0 && resendable(c.l.t, err) {
		c.attempt = 1
		c.send()
		return
	}
	if errors.Is(err, errServerClosedIdle) {
		err = &opError{"reading response", io.ErrUnexpectedEOF}
	}
	c.complete(0, err)
}

// timeout fails the request in hand at its deadline.
func (c *evconn) timeout() {
	op, nop := "reading response", "read"
	switch c.state {
	case stConnecting:
		op, nop = "connecting", "dial"
	case stWriting:
		op, nop = "writing request", "write"
	}
	c.drop()
	c.complete(0, &opError{op, &net.OpError{Op: nop, Net: "tcp", Err: os.ErrDeadlineExceeded}})
}

// ready handles epoll's report ev for c's socket.
func (c *evconn) ready(ev uint32) {
	switch c.state {
	case stConnecting:
		c.connected()
	case stWriting:
		if ev&unix.EPOLLOUT != 0 {
			c.flush()
		}
		if ev&^uint32(unix.EPOLLOUT) != 0 {
			// An answer (or a close) before the whole request went out:
			// a 413 or a 401 on a large body.
			c.read()
		}
	case stReading:
		c.read()
	default:
		// Idle: the server closed the connection, or sent what nobody
		// asked for (a 408 on its way out). Either way it is not reused;
		// this is the netpoll path's check before reuse, for free.
		c.drop()
	}
	if c.state == stIdle {
		c.next()
	}
}

func (c *evconn) finish() {
	c.state = stDone
	c.l.active--
}

// drop closes the connection; closing removes it from epoll.
func (c *evconn) drop() {
	if c.fd >= 0 {
		if c.l.ring != nil {
			c.bury()
		}
		unix.Close(c.fd)
		c.fd = -1
		c.gen++
		c.outWatch = false
	}
}

// release hands a healthy idle connection to the pool, after the loop's
// epoll instance is closed, for the next attack's netpoll or epoll path.
func (c *evconn) release() {
	if c.fd < 0 {
		return
	}
	fd := c.fd
	c.fd = -1
	f := os.NewFile(uintptr(fd), "")
	nc, err := net.FileConn(f) // a duplicate on Go's netpoller
	f.Close()
	if err == nil {
		c.l.at.a.pool.put(c.l.t.key, nc)
	}
}

// feedReader hands the response bytes read so far to the parser, ending
// with end: errNeedMore while the socket is open.
type feedReader struct {
	b   []byte
	end error
}

func (f *feedReader) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, f.end
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}
