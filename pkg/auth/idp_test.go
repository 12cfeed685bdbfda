package auth

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeIdP is a Keycloak-shaped OpenID provider over TLS: discovery under
// /realms/test and a token endpoint that issues short-lived tokens.
type fakeIdP struct {
	t      testing.TB
	srv    *httptest.Server
	cacert string // PEM of the server's certificate, in t.TempDir

	mu            sync.Mutex
	clientID      string
	secret        string // "" for a public client
	user, pass    string
	expiresIn     int  // access token lifetime, seconds
	refresh       bool // issue refresh tokens
	rejectRefresh bool // answer refresh grants with invalid_grant
	postOnly      bool // refuse client_secret_basic
	down          bool // answer everything with 503
	echo          bool // put the submitted credentials in error messages
	echoHeader    bool // put the Authorization header in error messages
	tokenPrefix   string
	n             int
	live          map[string]bool // refresh tokens issued
	grants        []grantSeen
	issued        map[string]time.Time // access token -> expiry
	discoveries   int
}

// grantSeen is one request to the token endpoint.
type grantSeen struct {
	at           time.Time
	grantType    string
	refreshToken string
	style        authStyle
}

func newFakeIdP(t testing.TB) *fakeIdP {
	t.Helper()
	p := &fakeIdP{
		t: t, clientID: "bench", secret: "s3cret-client", user: "alice", pass: "pa55-alice",
		expiresIn: 300, refresh: true, tokenPrefix: "at", live: map[string]bool{}, issued: map[string]time.Time{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /realms/test/.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("POST /realms/test/protocol/openid-connect/token", p.token)
	p.srv = httptest.NewUnstartedServer(mux)
	p.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	p.srv.StartTLS()
	t.Cleanup(p.srv.Close)
	p.cacert = filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
	if err := os.WriteFile(p.cacert, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *fakeIdP) issuer() string   { return p.srv.URL + "/realms/test" }
func (p *fakeIdP) tokenURL() string { return p.issuer() + "/protocol/openid-connect/token" }

// spec is a password-grant spec for this provider, its secrets in files.
func (p *fakeIdP) spec(t testing.TB) *OIDC {
	return &OIDC{
		Issuer: p.issuer(), ClientID: p.clientID, ClientSecretFile: writeFile(t, "client-secret", p.secret+"\n"),
		Username: p.user, PasswordFile: writeFile(t, "password", p.pass), CACert: p.cacert,
	}
}

func (p *fakeIdP) discovery(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.discoveries++
	writeJSON(w, 200, map[string]any{"issuer": p.issuer(), "token_endpoint": p.tokenURL()})
}

func (p *fakeIdP) token(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, 400, "invalid_request", err.Error())
		return
	}
	g := grantSeen{at: time.Now(), grantType: r.PostForm.Get("grant_type"), refreshToken: r.PostForm.Get("refresh_token")}
	if !p.clientOK(w, r, &g) {
		return
	}
	p.grants = append(p.grants, g)
	switch g.grantType {
	case GrantPassword:
		if r.PostForm.Get("username") != p.user || r.PostForm.Get("password") != p.pass {
			desc := "Invalid user credentials"
			if p.echo {
				desc += " for password " + r.PostForm.Get("password")
			}
			oauthError(w, 401, "invalid_grant", desc)
			return
		}
	case GrantClientCredentials:
	case "refresh_token":
		if p.rejectRefresh || !p.live[g.refreshToken] {
			oauthError(w, 400, "invalid_grant", "Session not active")
			return
		}
		delete(p.live, g.refreshToken)
	default:
		oauthError(w, 400, "unsupported_grant_type", g.grantType)
		return
	}
	p.n++
	at := fmt.Sprintf("%s-%d", p.tokenPrefix, p.n)
	p.issued[at] = time.Now().Add(time.Duration(p.expiresIn) * time.Second)
	resp := map[string]any{"access_token": at, "id_token": fmt.Sprintf("id-%d", p.n), "token_type": "Bearer", "expires_in": p.expiresIn}
	if p.refresh && g.grantType != GrantClientCredentials {
		rt := fmt.Sprintf("rt-%d", p.n)
		p.live[rt] = true
		resp["refresh_token"], resp["refresh_expires_in"] = rt, 1800
	}
	writeJSON(w, 200, resp)
}

// clientOK authenticates the client as Keycloak does: basic or post.
func (p *fakeIdP) clientOK(w http.ResponseWriter, r *http.Request, g *grantSeen) bool {
	id, secret, basic := r.BasicAuth()
	g.style = stylePost
	if basic {
		g.style = styleBasic
		if p.postOnly {
			oauthError(w, 401, "invalid_client", "basic authentication not allowed")
			return false
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.clientID || secret != p.secret {
		desc := "Invalid client credentials"
		if p.echo {
			desc += " " + secret
		}
		if p.echoHeader {
			// Not a client error, so the source does not retry with post.
			oauthError(w, 403, "access_denied", "refused (got "+r.Header.Get("Authorization")+")")
			return false
		}
		oauthError(w, 401, "invalid_client", desc)
		return false
	}
	return true
}

func (p *fakeIdP) seen() []grantSeen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]grantSeen(nil), p.grants...)
}

func (p *fakeIdP) set(f func(p *fakeIdP)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

func (p *fakeIdP) expiryOf(tok string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.issued[tok]
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func grantTypes(gs []grantSeen) string {
	var s []string
	for _, g := range gs {
		s = append(s, g.grantType)
	}
	return strings.Join(s, ",")
}

// withRetryInterval shortens the backoff after a failed renewal.
func withRetryInterval(d time.Duration) Option { return func(o *options) { o.retryInterval = d } }
