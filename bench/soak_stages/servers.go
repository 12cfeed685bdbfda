package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"
)

// idp is an OpenID provider on 127.0.0.1 over TLS whose client-credentials
// grant issues opaque access tokens living `life`; it remembers each
// token's expiry so that the backend can tell a live token from a dead one.
type idp struct {
	srv    *httptest.Server
	life   time.Duration
	secret string

	mu     sync.Mutex
	expiry map[string]time.Time
}

func newIdP(life time.Duration, secret string) *idp {
	p := &idp{life: life, secret: secret, expiry: map[string]time.Time{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": p.srv.URL, "token_endpoint": p.srv.URL + "/token"})
	})
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewUnstartedServer(mux)
	p.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.srv.StartTLS()
	return p
}

func (p *idp) token(w http.ResponseWriter, r *http.Request) {
	_, secret, _ := r.BasicAuth()
	if secret == "" {
		secret = r.PostFormValue("client_secret")
	}
	if r.PostFormValue("grant_type") != "client_credentials" || secret != p.secret {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	b := make([]byte, 24)
	rand.Read(b)
	tok := hex.EncodeToString(b)
	p.mu.Lock()
	p.expiry[tok] = time.Now().Add(p.life)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(p.life.Seconds())})
}

// writeCA writes the provider's certificate for the scenario's cacert.
func (p *idp) writeCA(path string) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw}), 0o600)
}

func (p *idp) issued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.expiry)
}

// backend answers 200 to a live token and 401 to an expired or unknown
// one, counting both, and the least life left on a token it accepted.
type backend struct {
	srv *httptest.Server
	p   *idp

	mu                        sync.Mutex
	ok, expired, unknown, bad int64
	minLeft                   time.Duration
}

func newBackend(p *idp) *backend {
	b := &backend{p: p, minLeft: p.life}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	return b
}

func (b *backend) serve(w http.ResponseWriter, r *http.Request) {
	tok, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	now := time.Now()
	b.p.mu.Lock()
	exp, known := b.p.expiry[tok]
	b.p.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !found:
		b.bad++
	case !known:
		b.unknown++
	case now.After(exp):
		b.expired++
	default:
		b.ok++
		b.minLeft = min(b.minLeft, exp.Sub(now))
		w.Write([]byte("ok\n"))
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}
