package load

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

func writePEM(t *testing.T, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// clientCert writes a self-signed client certificate and its key.
func clientCert(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "authbench-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, "client.pem", "CERTIFICATE", der), writePEM(t, "client.key", "EC PRIVATE KEY", kder)
}

func TestTLS(t *testing.T) {
	cert, key := clientCert(t)
	for _, cl := range clients {
		for _, tc := range []struct {
			name     string
			mtls     bool
			http2    bool
			client   func(s *httptest.Server) plan.Client
			wantOK   bool
			wantH2   bool
			wantConn int64 // TLS handshakes expected (keep-alive: one per worker)
		}{
			{"ca cert", false, false, func(s *httptest.Server) plan.Client {
				return plan.Client{CACert: writePEM(t, "ca.pem", "CERTIFICATE", s.Certificate().Raw)}
			}, true, false, 2},
			{"insecure", false, false, func(*httptest.Server) plan.Client { return plan.Client{Insecure: true} }, true, false, 2},
			{"client cert", true, false, func(*httptest.Server) plan.Client {
				return plan.Client{Insecure: true, Cert: cert, Key: key}
			}, true, false, 2},
			{"client cert missing", true, false, func(*httptest.Server) plan.Client { return plan.Client{Insecure: true} }, false, false, 0},
			{"http2", false, true, func(*httptest.Server) plan.Client { return plan.Client{Insecure: true, HTTP2: true} }, true, true, 1},
		} {
			t.Run(cl.name+"/"+tc.name, func(t *testing.T) {
				var h2 atomic.Int64
				s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if tc.mtls && len(r.TLS.PeerCertificates) == 0 {
						w.WriteHeader(http.StatusForbidden)
						return
					}
					if r.ProtoMajor == 2 {
						h2.Add(1)
					}
				}))
				s.EnableHTTP2 = tc.http2
				if tc.mtls {
					s.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
				}
				s.StartTLS()
				t.Cleanup(s.Close)
				a := attacker(t, tc.client(s), cl.opts...)
				_, r := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 10, Concurrency: 2})
				if ok := r.Successes == 10; ok != tc.wantOK {
					t.Fatalf("successes %d, errors %v %v", r.Successes, r.Errors, r.ErrorSamples)
				}
				if !tc.wantOK {
					if r.Errors[ClassTLS]+r.Errors[ClassReset] != 10 {
						t.Errorf("errors %v %v, want tls failures", r.Errors, r.ErrorSamples)
					}
					return
				}
				// net/http may dial a spare connection when requests race;
				// the fast client dials at most one per worker (a worker
				// that starts after the others took every request dials none).
				exact := cl.name == "fast" && !tc.http2
				if n := r.Phases.TLS.Count; n < 1 || (exact && n > tc.wantConn) || r.Phases.TLS.Mean <= 0 {
					t.Errorf("tls phase %+v, want 1 to %d handshakes", r.Phases.TLS, tc.wantConn)
				}
				if tc.wantH2 != (h2.Load() == 10) {
					t.Errorf("%d of 10 requests over HTTP/2, want HTTP/2: %v", h2.Load(), tc.wantH2)
				}
				fp := a.Probe(t.Context(), Request{URL: s.URL})
				if fp.Status != 200 || fp.Error != "" {
					t.Errorf("probe %+v", fp)
				}
			})
		}
	}
}

func TestNewAttackerErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o600)
	cert, key := clientCert(t)
	for _, tc := range []struct {
		name string
		c    plan.Client
		want string
	}{
		{"missing ca", plan.Client{CACert: "/nonexistent/ca.pem"}, "loading ca certificate: open /nonexistent/ca.pem"},
		{"bad ca", plan.Client{CACert: bad}, "loading ca certificate: no PEM certificate in " + bad},
		{"cert without key", plan.Client{Cert: cert}, "loading client certificate: cert and key must be given together"},
		{"key is not a key", plan.Client{Cert: cert, Key: cert}, "loading client certificate: "},
		{"good", plan.Client{Cert: cert, Key: key}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAttacker(tc.c)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestH2C(t *testing.T) {
	var h2 atomic.Int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			h2.Add(1)
		}
	}))
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Start()
	t.Cleanup(s.Close)
	_, r := runAttack(t, attacker(t, plan.Client{HTTP2: true}), Request{URL: s.URL}, Spec{Requests: 20, Concurrency: 4})
	if r.Successes != 20 || h2.Load() != 20 {
		t.Errorf("successes %d, %d over HTTP/2: %v", r.Successes, h2.Load(), r.ErrorSamples)
	}
}
