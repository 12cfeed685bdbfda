package auth

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recorder is a listener that keeps what it receives.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.seen = append(r.seen, req.Method+" "+req.URL.String()+" "+req.Header.Get("Authorization")+" "+string(b))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"stolen","token_endpoint":"` + "http://" + req.Host + `/token"}`))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// TestOIDCRefusesRedirects: a provider that redirects discovery or the
// token endpoint to another port gets an error naming where it pointed,
// and the other port receives nothing: no password, no client secret.
func TestOIDCRefusesRedirects(t *testing.T) {
	const pass, secret = "S3CRET-pass-4d1", "S3CRET-client-9a7"
	for _, path := range []string{"/token", "/.well-known/openid-configuration"} {
		t.Run(path, func(t *testing.T) {
			elsewhere := newRecorder(t)
			idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere.srv.URL+r.URL.Path+"?access_token=S3CRET-q", http.StatusTemporaryRedirect)
			}))
			t.Cleanup(idp.Close)
			o := &OIDC{Issuer: idp.URL, ClientID: "bench", Username: "alice",
				ClientSecretFile: writeFile(t, "cs", secret), PasswordFile: writeFile(t, "pw", pass)}
			if path == "/token" {
				o.TokenURL = idp.URL + "/token"
			}
			_, err := New(t.Context(), &Spec{OIDC: o})
			if err == nil || !strings.Contains(err.Error(), "refused a redirect (status 307) to "+elsewhere.srv.URL+path) {
				t.Errorf("New() error = %v, want the redirect to %s refused", err, elsewhere.srv.URL+path)
			}
			if err != nil && strings.Contains(err.Error(), "S3CRET") {
				t.Errorf("error %q holds a secret", err)
			}
			if len(elsewhere.seen) != 0 {
				t.Errorf("the redirect target received %q", elsewhere.seen)
			}
		})
	}
}

// TestProviderEchoesBasicHeader: a provider that quotes the client's
// Basic header in its refusal is quoted without it.
func TestProviderEchoesBasicHeader(t *testing.T) {
	p := newFakeIdP(t)
	p.echoHeader = true
	o := p.spec(t)
	o.ClientSecretFile = writeFile(t, "cs", "S3CRET-wrong-client")
	_, err := New(t.Context(), &Spec{OIDC: o})
	if err == nil || !strings.Contains(err.Error(), "refused (got Basic <redacted") {
		t.Fatalf("New() error = %v, want the refusal quoted, redacted", err)
	}
	basic := base64.StdEncoding.EncodeToString([]byte(p.clientID + ":S3CRET-wrong-client"))
	if strings.Contains(err.Error(), basic) || strings.Contains(err.Error(), "S3CRET") {
		t.Errorf("error %q quotes the Basic credential", err)
	}
}
