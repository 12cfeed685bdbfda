package keycloak

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeKeycloak plays the few admin REST and OIDC endpoints this package uses.
type fakeKeycloak struct {
	mu         sync.Mutex
	requests   []string        // "METHOD /path" in order
	realmHash  string          // "" when the realm does not exist
	created    json.RawMessage // the last POST /admin/realms body
	loginFails bool
	createCode int    // answer to POST /admin/realms; 0 means 201
	issuer     string // master realm issuer in discovery; "" means the right one
	readyAfter int    // discovery answers 503 this many times first
}

func (f *fakeKeycloak) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	base := "https://" + r.Host
	if r.URL.Path == "/realms/master/.well-known/openid-configuration" {
		if f.readyAfter > 0 {
			f.readyAfter--
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		iss := f.issuer
		if iss == "" {
			iss = base + "/realms/master"
		}
		json.NewEncoder(w).Encode(map[string]string{"issuer": iss})
		return
	}
	if r.URL.Path == "/realms/master/protocol/openid-connect/token" {
		r.ParseForm()
		if f.loginFails || r.PostForm.Get("grant_type") != "password" || r.PostForm.Get("client_id") != "admin-cli" ||
			r.PostForm.Get("username") != "admin" || r.PostForm.Get("password") != "admin-pw" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"invalid_grant","error_description":"Invalid user credentials"}`)
			return
		}
		io.WriteString(w, `{"access_token":"admin-token","expires_in":60}`)
		return
	}
	if r.Header.Get("Authorization") != "Bearer admin-token" {
		http.Error(w, `{"error":"HTTP 401 Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/admin/realms/authbench":
		if f.realmHash == "" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Realm not found."}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"realm": "authbench", "attributes": map[string]string{configHashAttribute: f.realmHash}})
	case r.Method == http.MethodDelete && r.URL.Path == "/admin/realms/authbench":
		f.realmHash = ""
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost && r.URL.Path == "/admin/realms":
		if f.createCode != 0 {
			w.WriteHeader(f.createCode)
			io.WriteString(w, `{"errorMessage":"Conflict detected. See logs for details"}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		f.created = body
		var rep realmRep
		json.Unmarshal(body, &rep)
		f.realmHash = rep.Attributes[configHashAttribute]
		w.WriteHeader(http.StatusCreated)
	default:
		http.NotFound(w, r)
	}
}

// startFake serves f over TLS on 127.0.0.1 and returns a Config aimed at it,
// trusting the server's certificate.
func startFake(t *testing.T, f *fakeKeycloak) Config {
	t.Helper()
	srv := httptest.NewUnstartedServer(f)
	// Handshakes refused on purpose would otherwise be logged.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	c := labConfig()
	c.HTTPSPort, _ = strconv.Atoi(port)
	c.CAFile = ca
	return c
}

func TestConfigure(t *testing.T) {
	want := realmRepresentation(labConfig()).Attributes[configHashAttribute]
	token := "POST /realms/master/protocol/openid-connect/token"
	for _, tc := range []struct {
		name     string
		fake     *fakeKeycloak
		requests []string
		err      string // substring; "" means success
	}{
		{"new realm", &fakeKeycloak{},
			[]string{token, "GET /admin/realms/authbench", "POST /admin/realms"}, ""},
		{"realm up to date", &fakeKeycloak{realmHash: want},
			[]string{token, "GET /admin/realms/authbench"}, ""},
		{"realm outdated", &fakeKeycloak{realmHash: "old"},
			[]string{token, "GET /admin/realms/authbench", "DELETE /admin/realms/authbench", "POST /admin/realms"}, ""},
		{"admin login refused", &fakeKeycloak{loginFails: true}, []string{token},
			"getting keycloak admin token for admin: POST https://127.0.0.1:"},
		{"create fails", &fakeKeycloak{createCode: http.StatusConflict},
			[]string{token, "GET /admin/realms/authbench", "POST /admin/realms"},
			"creating keycloak realm authbench: POST https://127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fake
			c := startFake(t, f)
			err := Configure(context.Background(), c)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Configure() = %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Configure() = %v, want an error containing %q", err, tc.err)
			}
			if err != nil && (strings.Contains(err.Error(), "admin-pw") || strings.Contains(err.Error(), "admin-token")) {
				t.Errorf("error %q reveals a secret", err)
			}
			if !slices.Equal(f.requests, tc.requests) {
				t.Errorf("requests =\n%q\nwant\n%q", f.requests, tc.requests)
			}
			if tc.err == "" && f.realmHash != want {
				t.Errorf("realm hash after Configure = %q, want %q", f.realmHash, want)
			}
		})
	}
}

func TestConfigureSendsRealmRepresentation(t *testing.T) {
	f := &fakeKeycloak{}
	if err := Configure(context.Background(), startFake(t, f)); err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(realmRepresentation(labConfig()))
	if string(f.created) != string(wantJSON) {
		t.Errorf("POST /admin/realms body =\n%s\nwant\n%s", f.created, wantJSON)
	}
}

func TestConfigureErrorMessages(t *testing.T) {
	f := &fakeKeycloak{createCode: http.StatusConflict}
	err := Configure(context.Background(), startFake(t, f))
	if err == nil || !strings.HasSuffix(err.Error(), "HTTP 409: Conflict detected. See logs for details") {
		t.Errorf("Configure() = %v, want it to end with Keycloak's errorMessage", err)
	}
	f = &fakeKeycloak{loginFails: true}
	err = Configure(context.Background(), startFake(t, f))
	if err == nil || !strings.HasSuffix(err.Error(), "HTTP 401: invalid_grant: Invalid user credentials") {
		t.Errorf("Configure() = %v, want it to end with the OAuth error", err)
	}
}

func TestConfigureRejectsInvalidConfig(t *testing.T) {
	f := &fakeKeycloak{}
	c := startFake(t, f)
	c.Realm = "master"
	if err := Configure(context.Background(), c); err == nil || !strings.Contains(err.Error(), "Realm: must not be master") {
		t.Errorf("Configure() = %v, want the validation error", err)
	}
	if len(f.requests) != 0 {
		t.Errorf("Configure sent %q for an invalid config", f.requests)
	}
}

func TestReady(t *testing.T) {
	for _, tc := range []struct {
		name string
		fake *fakeKeycloak
		err  string
	}{
		{"ready", &fakeKeycloak{}, ""},
		{"starting", &fakeKeycloak{readyAfter: 1}, "HTTP 503"},
		{"wrong hostname", &fakeKeycloak{issuer: "https://localhost:8443/realms/master"}, `issuer is "https://localhost:8443/realms/master"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Ready(context.Background(), startFake(t, tc.fake))
			if tc.err == "" && err != nil {
				t.Fatalf("Ready() = %v", err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("Ready() = %v, want an error containing %q", err, tc.err)
			}
		})
	}
}

func TestReadyTrustsOnlyTheLabCA(t *testing.T) {
	c := startFake(t, &fakeKeycloak{})
	other := startFake(t, &fakeKeycloak{})
	// httptest servers share one certificate, so make a CA file that holds a
	// different one: a self-signed certificate from the integration helper.
	dir := t.TempDir()
	certFile, _, err := writeSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.CAFile = certFile
	if err := Ready(context.Background(), c); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("Ready() with a foreign CA = %v, want a certificate error", err)
	}
	if err := Ready(context.Background(), other); err != nil {
		t.Errorf("Ready() with the right CA = %v", err)
	}
	c.CAFile = filepath.Join(dir, "missing.pem")
	if err := Ready(context.Background(), c); err == nil || !strings.Contains(err.Error(), "reading keycloak CA file") {
		t.Errorf("Ready() without a CA file = %v", err)
	}
}

func TestWaitReady(t *testing.T) {
	f := &fakeKeycloak{readyAfter: 3}
	c := startFake(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitReady(ctx, c, 10*time.Millisecond); err != nil {
		t.Fatalf("WaitReady() = %v", err)
	}
	if n := len(f.requests); n != 4 {
		t.Errorf("WaitReady made %d requests, want 4 (3 refused, 1 ready)", n)
	}

	f = &fakeKeycloak{readyAfter: 1 << 30}
	c = startFake(t, f)
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := WaitReady(ctx, c, 10*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("WaitReady() = %v, want the deadline and the last error", err)
	}
}
