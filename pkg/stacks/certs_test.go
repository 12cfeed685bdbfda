package stacks

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/capool"
)

func TestEnsureCerts(t *testing.T) {
	dir := t.TempDir()
	c, err := EnsureCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("keys are 0600, certificates 0644", func(t *testing.T) {
		for file, want := range map[string]os.FileMode{
			c.CAKey: 0o600, c.ServerKey: 0o600, c.ServerBundle: 0o600, c.SAKey: 0o600,
			c.CA: 0o644, c.Server: 0o644, c.SAPub: 0o644,
		} {
			st, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != want {
				t.Errorf("%s mode = %o, want %o", filepath.Base(file), st.Mode().Perm(), want)
			}
		}
	})
	t.Run("server certificate chains to the CA for 127.0.0.1 and localhost", func(t *testing.T) {
		pool := x509.NewCertPool()
		caPEM, _ := os.ReadFile(c.CA)
		if !pool.AppendCertsFromPEM(caPEM) {
			t.Fatal("no CA certificate")
		}
		srvPEM, _ := os.ReadFile(c.Server)
		blk, _ := pem.Decode(srvPEM)
		cert, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"127.0.0.1", "localhost"} {
			if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: name}); err != nil {
				t.Errorf("verify for %s: %v", name, err)
			}
		}
	})
	t.Run("a TLS server with the pair is trusted through the CA", func(t *testing.T) {
		pair, err := tls.LoadX509KeyPair(c.Server, c.ServerKey)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
		srv.Listener.Close()
		srv.Listener, _ = net.Listen("tcp", Loopback+":0")
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
		srv.StartTLS()
		defer srv.Close()
		cfg, err := capool.TLSConfig(c.CA, false)
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
		resp, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	})
	t.Run("HAProxy bundle holds certificate and key", func(t *testing.T) {
		b, _ := os.ReadFile(c.ServerBundle)
		if !strings.Contains(string(b), "BEGIN CERTIFICATE") || !strings.Contains(string(b), "BEGIN PRIVATE KEY") {
			t.Error("bundle lacks certificate or key")
		}
	})
	t.Run("second call keeps the files", func(t *testing.T) {
		before, _ := os.ReadFile(c.Server)
		caBefore, _ := os.ReadFile(c.CA)
		if _, err := EnsureCerts(dir); err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(c.Server)
		caAfter, _ := os.ReadFile(c.CA)
		if string(before) != string(after) || string(caBefore) != string(caAfter) {
			t.Error("certificates were regenerated")
		}
	})
	t.Run("a missing server certificate is reissued by the same CA", func(t *testing.T) {
		caBefore, _ := os.ReadFile(c.CA)
		os.Remove(c.Server)
		if _, err := EnsureCerts(dir); err != nil {
			t.Fatal(err)
		}
		caAfter, _ := os.ReadFile(c.CA)
		if string(caBefore) != string(caAfter) {
			t.Error("CA was regenerated")
		}
		if _, err := tls.LoadX509KeyPair(c.Server, c.ServerKey); err != nil {
			t.Errorf("reissued pair: %v", err)
		}
	})
}

func TestEnsureSecrets(t *testing.T) {
	dir := t.TempDir()
	s, err := EnsureSecrets(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{s.TokenAuthFile, s.ClientSecret, s.CookieSecret, s.KeycloakAdminPass,
		s.PasswordFile(UserAlice), s.PasswordFile(UserBob)}
	for _, u := range tokenUsers {
		files = append(files, s.TokenFile(u.file))
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %o, want 600", f, st.Mode().Perm())
		}
	}
	alice, _ := ReadSecret(s.TokenFile(UserAlice))
	if !strings.HasPrefix(alice, "sha256~") || len(alice) != len("sha256~")+43 {
		t.Errorf("alice's token %q... is not OpenShift-shaped", alice[:10])
	}
	csv, _ := os.ReadFile(s.TokenAuthFile)
	if !strings.Contains(string(csv), alice+",alice,alice,") {
		t.Error("token-auth file lacks alice's line")
	}
	if !strings.Contains(string(csv), `,admin,admin,"system:masters"`) {
		t.Error("admin is not in system:masters")
	}
	cookie, _ := ReadSecret(s.CookieSecret)
	if len(cookie) != 32 {
		t.Errorf("cookie secret has %d bytes, oauth2-proxy wants 16, 24 or 32", len(cookie))
	}
	again, err := EnsureSecrets(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a2, _ := ReadSecret(again.TokenFile(UserAlice)); a2 != alice {
		t.Error("second EnsureSecrets changed alice's token")
	}
}
