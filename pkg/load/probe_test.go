package load

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

func TestProbe(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "echo/1.0")
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("hello"))
	}))
	t.Cleanup(s.Close)
	sum := sha256.Sum256([]byte("hello"))
	a := attacker(t, plan.Client{})
	for _, tc := range []struct {
		name string
		r    Request
		want string // status/server/sha or error substring
	}{
		{"ok", Request{URL: s.URL, Token: staticToken("tok")}, "200 echo/1.0 " + hex.EncodeToString(sum[:])},
		{"no token", Request{URL: s.URL}, "401 echo/1.0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"token error", Request{URL: s.URL, Token: failingToken{}}, "getting token: token endpoint down"},
		{"refused", Request{URL: closedPort(t)}, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fp := a.Probe(t.Context(), tc.r)
			got := fp.Error
			if got == "" {
				got = strings.Join([]string{strconv.Itoa(fp.Status), fp.Server, fp.BodySHA256}, " ")
			}
			if !strings.Contains(got, tc.want) || fp.URL != tc.r.URL {
				t.Errorf("probe %+v, want %q", fp, tc.want)
			}
		})
	}
}

// oneShotServer answers one request per connection and closes it without
// saying so, as a server with a tiny keep-alive timeout does.
func oneShotServer(t *testing.T) (string, *atomic.Int64) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var conns atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line == "\r\n" {
						break
					}
				}
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/", &conns
}

func TestStaleKeepAliveRetried(t *testing.T) {
	u, conns := oneShotServer(t)
	a := attacker(t, plan.Client{})
	_, r := runAttack(t, a, Request{URL: u}, Spec{Requests: 30, Concurrency: 2})
	if r.Successes != 30 || conns.Load() < 30 {
		t.Errorf("successes %d over %d connections, errors %v", r.Successes, conns.Load(), r.ErrorSamples)
	}
}

func TestIdleConnectionsReused(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			var conns atomic.Int64
			// Slow enough that every worker takes part in every attack.
			s := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { time.Sleep(2 * time.Millisecond) }))
			s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}
			s.Start()
			t.Cleanup(s.Close)
			a := attacker(t, plan.Client{}, cl.opts...)
			runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 40, Concurrency: 4}) // warm-up
			s.CloseClientConnections()                                               // idle ones die
			runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 40, Concurrency: 4})
			_, r := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 40, Concurrency: 4})
			if r.Successes != 40 || r.Phases.Connect.Count != 0 {
				t.Errorf("successes %d, %d new connections in the third attack: want the second's reused", r.Successes, r.Phases.Connect.Count)
			}
			if cl.name == "fast" && conns.Load() != 8 {
				t.Errorf("%d connections over three attacks, want 8", conns.Load())
			}
		})
	}
}
