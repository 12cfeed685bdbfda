package capool

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned is a PEM CA certificate made for the test.
func selfSigned(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "capool test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	ca, junk := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "token")
	os.WriteFile(ca, selfSigned(t), 0o600)
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	tests := []struct {
		name    string
		file    string
		system  bool
		wantErr string
	}{
		{name: "lab CA alone", file: ca},
		{name: "user CA on the system's", file: ca, system: true},
		{name: "missing", file: filepath.Join(dir, "nope.pem"), wantErr: "nope.pem: no such file"},
		{name: "no certificate", file: junk, wantErr: "no PEM certificate in " + junk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool, err := File(tt.file, tt.system)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || pool == nil {
				t.Fatalf("pool %v, err %v", pool, err)
			}
		})
	}
	if _, err := PEM([]byte("junk"), "the kubeconfig's certificate-authority-data"); err == nil ||
		!strings.Contains(err.Error(), "certificate-authority-data") {
		t.Errorf("PEM of junk: %v", err)
	}
}

func TestTLSConfig(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, selfSigned(t), 0o600)
	tests := []struct {
		name      string
		file      string
		insecure  bool
		wantPool  bool
		wantError bool
	}{
		{name: "system CAs", file: ""},
		{name: "plus a CA file", file: ca, wantPool: true},
		{name: "insecure, as asked", insecure: true},
		{name: "missing CA file", file: ca + ".nope", wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc, err := TLSConfig(tt.file, tt.insecure)
			if (err != nil) != tt.wantError {
				t.Fatalf("err = %v, want error %v", err, tt.wantError)
			}
			if err != nil {
				return
			}
			if (tc.RootCAs != nil) != tt.wantPool || tc.InsecureSkipVerify != tt.insecure || tc.MinVersion != tls.VersionTLS12 {
				t.Errorf("config %+v", tc)
			}
		})
	}
}
