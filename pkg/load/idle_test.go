package load

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// idleServer is a raw HTTP/1.1 server on 127.0.0.1 that answers 200 "hello"
// and then, after each response, ends the connection its own way: after a
// keep-alive timeout (closing, resetting or sending HAProxy's 408 first), or
// right away after every few requests. It counts the requests it received.
type idleServer struct {
	l        net.Listener
	idle     time.Duration // keep-alive timeout
	how      string        // "close", "rst", "408"
	perConn  int           // > 0: close (no header) after this many requests
	received atomic.Int64
	wg       sync.WaitGroup
}

func newIdleServer(t *testing.T, how string, idle time.Duration, perConn int) *idleServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &idleServer{l: l, idle: idle, how: how, perConn: perConn}
	s.wg.Go(s.accept)
	t.Cleanup(func() { l.Close(); s.wg.Wait() })
	return s
}

func (s *idleServer) url() string { return "http://" + s.l.Addr().String() + "/" }

func (s *idleServer) accept() {
	for {
		nc, err := s.l.Accept()
		if err != nil {
			return
		}
		s.wg.Go(func() { s.serve(nc.(*net.TCPConn)) })
	}
}

func (s *idleServer) serve(nc *net.TCPConn) {
	defer nc.Close()
	br := bufio.NewReader(nc)
	for n := 1; ; n++ {
		nc.SetReadDeadline(time.Now().Add(s.idle))
		if _, err := br.Peek(1); err != nil {
			var ne net.Error
			if ok := asNetError(err, &ne); ok && ne.Timeout() {
				s.endIdle(nc)
			}
			return
		}
		nc.SetReadDeadline(time.Time{})
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		s.received.Add(1)
		if _, err := io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"); err != nil {
			return
		}
		if s.perConn > 0 && n >= s.perConn {
			return
		}
	}
}

// endIdle ends an idle keep-alive connection as real servers do.
func (s *idleServer) endIdle(nc *net.TCPConn) {
	switch s.how {
	case "rst":
		nc.SetLinger(0)
	case "408":
		io.WriteString(nc, "HTTP/1.0 408 Request Time-out\r\nContent-Type: text/html\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n<html><body><h1>408 Request Time-out</h1>\nYour browser didn't send a complete request in time.\n</body></html>\n")
	}
}

func asNetError(err error, ne *net.Error) bool {
	e, ok := err.(net.Error)
	*ne = e
	return ok
}

// TestIdleConnectionsClosedByServer sends GET and POST, open and closed
// loop, on keep-alive connections a server closes, resets or times out with
// an unsolicited 408 while they are idle: every request must be answered
// 200 exactly once, none counted as reset, no 408 counted as an answer.
func TestIdleConnectionsClosedByServer(t *testing.T) {
	for _, path := range paths {
		t.Run(string(path), func(t *testing.T) { testIdleConnectionsClosedByServer(t, path) })
	}
}

func testIdleConnectionsClosedByServer(t *testing.T, path IOPath) {
	const idle = 30 * time.Millisecond
	for _, how := range []string{"close", "rst", "408"} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(how+"/"+method+"/open", func(t *testing.T) {
				s := newIdleServer(t, how, idle, 0)
				a := attacker(t, plan.Client{}, WithIOPath(path))
				// 20 req/s on one connection: it idles 50 ms, past the timeout, before each send.
				r := Request{Method: method, URL: s.url(), Body: []byte("grant_type=x")}
				_, res := runAttack(t, a, r, Spec{Rate: 20, Requests: 6, Concurrency: 1})
				assertAllAnswered(t, res.Status, res.Errors, res.ErrorSamples, s, 6)
			})
			t.Run(how+"/"+method+"/closed-with-pause", func(t *testing.T) {
				s := newIdleServer(t, how, idle, 0)
				a := attacker(t, plan.Client{}, WithIOPath(path))
				r := Request{Method: method, URL: s.url(), Body: []byte("grant_type=x")}
				var status map[string]int64
				var errs map[string]int64
				for i := range 3 { // iterations with a delay: the pool's connections die meanwhile
					if i > 0 {
						time.Sleep(2 * idle)
					}
					_, res := runAttack(t, a, r, Spec{Requests: 4, Concurrency: 2})
					status, errs = mergeCounts(status, res.Status), mergeCounts(errs, res.Errors)
				}
				assertAllAnswered(t, status, errs, nil, s, 12)
			})
		}
	}
	t.Run("close-after-3/POST/closed", func(t *testing.T) {
		s := newIdleServer(t, "close", time.Minute, 3)
		a := attacker(t, plan.Client{}, WithIOPath(path))
		_, res := runAttack(t, a, Request{Method: http.MethodPost, URL: s.url(), Body: []byte("x")}, Spec{Requests: 60, Concurrency: 2})
		assertAllAnswered(t, res.Status, res.Errors, res.ErrorSamples, s, 60)
	})
}

func mergeCounts(a, b map[string]int64) map[string]int64 {
	if a == nil {
		a = map[string]int64{}
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}

func assertAllAnswered(t *testing.T, status, errs map[string]int64, samples map[string]string, s *idleServer, n int64) {
	t.Helper()
	if status["200"] != n || len(status) != 1 || len(errs) != 0 {
		t.Errorf("status %v errors %v (%v), want {200: %d} and no error", status, errs, samples, n)
	}
	if got := s.received.Load(); got != n {
		t.Errorf("server received %d requests, want %d (each exactly once)", got, n)
	}
}
