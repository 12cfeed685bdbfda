package load

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// TestURLCredentialsSentAsBasicAuth: http://user:pw@host/ is answered 200
// by a server that requires those credentials, through both clients.
func TestURLCredentialsSentAsBasicAuth(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "pa:ss" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(s.Close)
	url := strings.Replace(s.URL, "http://", "http://alice:pa%3Ass@", 1)
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			a := attacker(t, plan.Client{}, cl.opts...)
			_, r := runAttack(t, a, Request{URL: url}, Spec{Requests: 5, Concurrency: 1})
			if r.Status["200"] != 5 {
				t.Errorf("status %v, want 5 x 200", r.Status)
			}
		})
	}
}

// connServer answers 200 and records each request's remote address and
// method, which tell connections and methods apart.
type connServer struct {
	*httptest.Server
	mu      sync.Mutex
	remotes map[string]int
	methods []string
}

func newConnServer(t *testing.T) *connServer {
	cs := &connServer{remotes: map[string]int{}}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.remotes[r.RemoteAddr]++
		cs.methods = append(cs.methods, r.Method)
		cs.mu.Unlock()
		w.Header().Set("Content-Length", "5")
		if r.Method != http.MethodHead {
			io.WriteString(w, "hello")
		}
	}))
	t.Cleanup(cs.Close)
	return cs
}

// TestConnectionCloseHeader: -H "Connection: close" means a new connection
// per request, as with net/http and hey.
func TestConnectionCloseHeader(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			s := newConnServer(t)
			a := attacker(t, plan.Client{}, cl.opts...)
			h := http.Header{"Connection": {"close"}}
			_, r := runAttack(t, a, Request{URL: s.URL, Header: h}, Spec{Requests: 6, Concurrency: 1})
			if r.Status["200"] != 6 || len(s.remotes) != 6 {
				t.Errorf("status %v over %d connections, want 6 x 200 over 6", r.Status, len(s.remotes))
			}
		})
	}
}

// TestMethodUpperCased: -m head is sent as HEAD, and its bodiless
// response is not waited for until the timeout.
func TestMethodUpperCased(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			s := newConnServer(t)
			a := attacker(t, plan.Client{Timeout: plan.Duration(2 * time.Second)}, cl.opts...)
			start := time.Now()
			_, r := runAttack(t, a, Request{Method: "head", URL: s.URL}, Spec{Requests: 3, Concurrency: 1})
			if r.Status["200"] != 3 || len(r.Errors) != 0 {
				t.Errorf("status %v errors %v, want 3 x 200", r.Status, r.Errors)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("3 HEAD requests took %s: the client waited for a body", took)
			}
			for _, m := range s.methods {
				if m != http.MethodHead {
					t.Errorf("server saw method %q, want HEAD", m)
				}
			}
		})
	}
}

// TestPhasesOnlyForAnswers: a request that fails records no write time;
// an early answer (413 before the body was read) records its phases.
func TestPhasesOnlyForAnswers(t *testing.T) {
	t.Run("failed attempts", func(t *testing.T) {
		hangup := newHangupServer(t)
		a := attacker(t, plan.Client{})
		_, r := runAttack(t, a, Request{Method: http.MethodPost, URL: hangup, Body: []byte("x")}, Spec{Requests: 4, Concurrency: 1})
		if r.Errors[ClassReset] != 4 {
			t.Fatalf("errors %v, want 4 resets", r.Errors)
		}
		if n := r.Phases.Write.Count; n != 0 {
			t.Errorf("write time recorded for %d failed requests", n)
		}
	})
	t.Run("early answer", func(t *testing.T) {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		}))
		t.Cleanup(s.Close)
		a := attacker(t, plan.Client{})
		body := bytes.Repeat([]byte("x"), 8<<20) // larger than the socket buffers
		_, r := runAttack(t, a, Request{Method: http.MethodPost, URL: s.URL, Body: body}, Spec{Requests: 3, Concurrency: 1})
		if r.Status["413"] != 3 {
			t.Fatalf("status %v errors %v, want 3 x 413", r.Status, r.ErrorSamples)
		}
		if p := r.Phases; p.Write.Count != 3 || p.Wait.Count != 3 || p.Read.Count != 3 {
			t.Errorf("phase counts write %d wait %d read %d, want 3 each", p.Write.Count, p.Wait.Count, p.Read.Count)
		}
	})
}

// newHangupServer reads each request and closes the connection unanswered.
func newHangupServer(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hj, _ := w.(http.Hijacker)
		nc, _, err := hj.Hijack()
		if err == nil {
			nc.Close()
		}
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// TestTokenFailureCountedOnce: a token-source failure in the open model is
// a failed request of class auth-token, not also an unsent one.
func TestTokenFailureCountedOnce(t *testing.T) {
	s, _ := countingServer(t)
	a := attacker(t, plan.Client{})
	_, r := runAttack(t, a, Request{URL: s.URL, Token: failingToken{}}, Spec{Rate: 100, Duration: 300 * time.Millisecond, Concurrency: 2})
	if r.Requests == 0 || r.Errors[ClassAuthToken] != r.Requests {
		t.Errorf("requests %d errors %v, want every request failed as auth-token", r.Requests, r.Errors)
	}
	if r.Unsent != nil {
		t.Errorf("unsent %d: token failures counted twice", *r.Unsent)
	}
}
