package load

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// idleCheckAfter is how long a connection may sit idle before it is checked
// before reuse. Back-to-back requests (the closed loop's hot path) skip the
// check: a server closes idle connections only after a timeout, far longer.
const idleCheckAfter = int64(time.Millisecond)

// errServerClosedIdle is a reused connection the server had closed before
// it could have read the request, found too late for the idle check. The
// request never reached the server, so it is resent whatever its method.
var errServerClosedIdle = errors.New("server closed the idle connection")

// h1 is one worker's HTTP/1.1 client: one connection, one read buffer, and
// the request bytes, rebuilt only when the token changes.
type h1 struct {
	a    *Attacker
	t    *target
	ph   *phaseSet
	nc   net.Conn
	rc   syscall.RawConn // nc's socket, for the idle check
	br   *bufio.Reader
	used int   // requests completed on nc
	idle int64 // engine time nc's last response ended
	st   idleState
	req  []byte
	tok  string
	ok   bool // req holds the rendering of tok
}

// readBufSize is each worker's response buffer: large enough for the
// headers of most responses in one read.
const readBufSize = 8 << 10

func newH1(a *Attacker, t *target, ph *phaseSet) *h1 {
	return &h1{a: a, t: t, ph: ph, br: bufio.NewReaderSize(nil, readBufSize)}
}

// errBadToken keeps a token with control characters off the wire without
// ever printing it.
var errBadToken = errors.New("token contains a control character")

// do sends one request and reads its response. start is the send time used
// for the deadline.
func (c *h1) do(token string, start int64) (int, error) {
	if c.t.token && (!c.ok || token != c.tok) {
		if !validValue(token) {
			return 0, &tokenError{errBadToken}
		}
		c.req, c.tok, c.ok = c.t.render(c.req, token), token, true
	} else if !c.ok {
		c.req, c.ok = c.t.render(c.req, ""), true
	}
	deadline := wall(start).Add(c.a.timeout)
	if c.nc != nil && start-c.idle > idleCheckAfter && !c.st.alive(c.rc) {
		c.drop()
	}
	for attempt := 0; ; attempt++ {
		if c.nc == nil {
			// A resend dials: the pool may hold more connections the
			// server has closed.
			if err := c.connect(deadline, attempt > 0); err != nil {
				return 0, err
			}
		}
		reused := c.used > 0
		status, gotByte, err := c.roundTrip(deadline)
		if err == nil {
			return status, nil
		}
		c.drop()
		if reused && !gotByte && attempt == 0 && c.resendable(err) {
			continue
		}
		if errors.Is(err, errServerClosedIdle) {
			err = &opError{"reading response", io.ErrUnexpectedEOF}
		}
		return 0, err
	}
}

// resendable reports whether a request that failed on a reused connection
// before any of its response arrived may be sent again on a fresh one. The
// server closed (or reset) a keep-alive connection it considered idle, so it
// never processed the request: net/http resends then too, for any method,
// when it can tell (errServerClosedIdle); a closed or reset connection with
// nothing read is the same case found a moment later. A timeout is not: the
// server may be working on the request.
func (c *h1) resendable(err error) bool { return resendable(c.t, err) }

func resendable(t *target, err error) bool {
	switch {
	case isTimeout(err):
		return false
	case t.replayable, errors.Is(err, errServerClosedIdle):
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (c *h1) roundTrip(deadline time.Time) (status int, gotByte bool, err error) {
	if err := c.nc.SetDeadline(deadline); err != nil {
		return 0, false, &opError{"writing request", err}
	}
	// Phases are kept only for the attempt that produced the result.
	t0 := now()
	werr := c.write()
	t1 := now()
	if _, err := c.br.Peek(1); err != nil {
		if werr != nil {
			return 0, false, werr
		}
		return 0, false, &opError{"reading response", err}
	}
	t2 := now()
	status, ans, keep, err := readAnswer(c.br, c.t.head)
	if c.used > 0 && status == 408 && !keep {
		// HAProxy (the OpenShift router) sends "408 Request Time-out" as
		// it closes an idle keep-alive connection: an answer to no request,
		// ignored as net/http ignores it. Its body may end in a reset,
		// when the server closes with our request unread.
		return 0, false, errServerClosedIdle
	}
	if err != nil {
		return 0, true, &opError{"reading response", err}
	}
	t3 := now()
	c.ph[phaseWrite].add(t1 - t0)
	c.ph[phaseWait].add(t2 - t1)
	c.ph[phaseRead].add(t3 - t2)
	c.used++
	c.idle = t3
	// A server may answer (401, 413) and close before reading a large
	// body (werr != nil); that answer is the result, as net/http also
	// reports it. Bytes nobody asked for would be read as the next response.
	if werr != nil || !keep || c.t.closeConn || c.br.Buffered() > 0 {
		c.drop()
	}
	return withAnswer(status, ans), true, nil
}

func (c *h1) write() error {
	if _, err := c.nc.Write(c.req); err != nil {
		return &opError{"writing request", err}
	}
	if !c.t.inline {
		if _, err := c.nc.Write(c.t.body); err != nil {
			return &opError{"writing request body", err}
		}
	}
	return nil
}

// connect takes an idle connection or dials one, timing each phase.
func (c *h1) connect(deadline time.Time, fresh bool) error {
	if !c.t.closeConn && !fresh {
		if nc := c.a.pool.get(c.t.key); nc != nil {
			c.use(nc, 1)
			return nil
		}
	}
	addrs, err := c.resolve(deadline)
	if err != nil {
		return &opError{"resolving host", err}
	}
	t0 := now()
	var nc net.Conn
	d := net.Dialer{Deadline: deadline, KeepAlive: 30 * time.Second}
	for _, ip := range addrs {
		if nc, err = d.Dial("tcp", netip.AddrPortFrom(ip, c.t.port).String()); err == nil {
			break
		}
	}
	if err != nil {
		return &opError{"connecting", err}
	}
	t1 := now()
	c.ph[phaseConnect].add(t1 - t0)
	if c.t.tls != nil {
		tc := tls.Client(nc, c.t.tls)
		if err := nc.SetDeadline(deadline); err != nil {
			nc.Close()
			return &opError{"tls handshake", err}
		}
		if err := tc.Handshake(); err != nil {
			nc.Close()
			return &opError{"tls handshake", err}
		}
		c.ph[phaseTLS].add(now() - t1)
		nc = tc
	}
	c.use(nc, 0)
	return nil
}

func (c *h1) use(nc net.Conn, used int) {
	c.nc, c.used, c.idle = nc, used, now()
	c.rc = rawConn(nc)
	c.br.Reset(nc)
}

func (c *h1) resolve(deadline time.Time) ([]netip.Addr, error) {
	return resolveHost(c.t, c.ph, deadline)
}

// resolveHost returns t's addresses: its IP, or the resolver's answer,
// timed as the DNS phase.
func resolveHost(t *target, ph *phaseSet, deadline time.Time) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(t.host); err == nil {
		return []netip.Addr{ip}, nil
	}
	t0 := now()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", t.host)
	ph[phaseDNS].add(now() - t0)
	if err == nil && len(addrs) == 0 {
		err = &net.DNSError{Err: "no such host", Name: t.host, IsNotFound: true}
	}
	return addrs, err
}

// drop closes the connection after an error or a "Connection: close".
func (c *h1) drop() {
	if c.nc != nil {
		c.nc.Close()
		c.nc, c.rc = nil, nil
	}
}

// release returns a healthy connection to the pool at the end of an attack.
func (c *h1) release() {
	if c.nc != nil && c.br.Buffered() == 0 {
		c.a.pool.put(c.t.key, c.nc)
		c.nc, c.rc = nil, nil
	}
	c.drop()
}

// opError says which step of a request failed.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return e.op + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// discard reads r to its end: a body delimited by the connection's close.
func discard(r io.Reader) error {
	_, err := io.Copy(io.Discard, r)
	return err
}
