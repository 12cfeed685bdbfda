package stacks

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/atomicfile"
)

// Loopback is the only address the lab binds or targets, and the server
// certificate's IP address.
const Loopback = "127.0.0.1"

// Certificate lifetimes. The server certificate is renewed at start when it
// has less than certRenewBefore left.
const (
	caLifetime      = 10 * 365 * 24 * time.Hour
	certLifetime    = 365 * 24 * time.Hour
	certRenewBefore = 30 * 24 * time.Hour
)

// Certs are the lab's PEM files, all under DIR/certs. Keys are mode 0600.
type Certs struct {
	CA, CAKey    string
	Server       string // SANs 127.0.0.1 and localhost, for every TLS listener
	ServerKey    string
	ServerBundle string // Server + ServerKey in one file, for HAProxy
	SAPub        string // public key for kube-apiserver --service-account-key-file
	SAKey        string // its private key, --service-account-signing-key-file
}

// CertPaths names the certificate files of a lab dir without creating them.
func CertPaths(dir string) Certs {
	d := filepath.Join(dir, "certs")
	return Certs{
		CA: filepath.Join(d, "ca.crt"), CAKey: filepath.Join(d, "ca.key"),
		Server: filepath.Join(d, "server.crt"), ServerKey: filepath.Join(d, "server.key"),
		ServerBundle: filepath.Join(d, "server-bundle.pem"),
		SAPub:        filepath.Join(d, "sa.pub"), SAKey: filepath.Join(d, "sa.key"),
	}
}

// EnsureCerts creates the lab CA, the server certificate and the service
// account key pair under dir/certs, keeping those that exist and are valid.
func EnsureCerts(dir string) (Certs, error) {
	c := CertPaths(dir)
	if err := os.MkdirAll(filepath.Dir(c.CA), 0o700); err != nil {
		return c, fmt.Errorf("creating certs dir: %w", err)
	}
	ca, caKey, err := ensureCA(c)
	if err != nil {
		return c, err
	}
	if err := ensureServer(c, ca, caKey); err != nil {
		return c, err
	}
	if err := ensureServiceAccount(c); err != nil {
		return c, err
	}
	return c, nil
}

func ensureCA(c Certs) (*x509.Certificate, crypto.Signer, error) {
	if cert, key, err := loadPair(c.CA, c.CAKey); err == nil && time.Until(cert.NotAfter) > certRenewBefore {
		return cert, key, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "authbench lab CA", Organization: []string{"authbench"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(caLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("creating CA certificate: %w", err)
	}
	if err := writePair(c.CA, c.CAKey, der, key); err != nil {
		return nil, nil, err
	}
	cert, _ := x509.ParseCertificate(der)
	// A new CA invalidates the server certificate.
	_ = os.Remove(c.Server)
	return cert, key, nil
}

func ensureServer(c Certs, ca *x509.Certificate, caKey crypto.Signer) error {
	if cert, _, err := loadPair(c.Server, c.ServerKey); err == nil &&
		time.Until(cert.NotAfter) > certRenewBefore && cert.CheckSignatureFrom(ca) == nil && fileExists(c.ServerBundle) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating server key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "authbench lab", Organization: []string{"authbench"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(certLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.ParseIP(Loopback)},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return fmt.Errorf("creating server certificate: %w", err)
	}
	if err := writePair(c.Server, c.ServerKey, der, key); err != nil {
		return err
	}
	certPEM, _ := os.ReadFile(c.Server)
	keyPEM, _ := os.ReadFile(c.ServerKey)
	return writeFileAtomic(c.ServerBundle, append(certPEM, keyPEM...), 0o600)
}

func ensureServiceAccount(c Certs) error {
	if fileExists(c.SAPub) && fileExists(c.SAKey) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating service account key: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding service account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return fmt.Errorf("encoding service account public key: %w", err)
	}
	if err := writeFileAtomic(c.SAKey, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		return err
	}
	return writeFileAtomic(c.SAPub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}

// writePair writes a certificate (0644) and its PKCS#8 key (0600).
func writePair(certFile, keyFile string, der []byte, key crypto.Signer) error {
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding key %s: %w", keyFile, err)
	}
	if err := writeFileAtomic(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		return err
	}
	return writeFileAtomic(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func loadPair(certFile, keyFile string) (*x509.Certificate, crypto.Signer, error) {
	cb, err := os.ReadFile(certFile)
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, err
	}
	cblk, _ := pem.Decode(cb)
	kblk, _ := pem.Decode(kb)
	if cblk == nil || kblk == nil {
		return nil, nil, errors.New("not PEM")
	}
	cert, err := x509.ParseCertificate(cblk.Bytes)
	if err != nil {
		return nil, nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(kblk.Bytes)
	if err != nil {
		return nil, nil, err
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, nil, errors.New("key cannot sign")
	}
	return cert, signer, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeFileAtomic writes through a temporary file and a rename, so readers
// never see half a file, and sets mode even when the file existed.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	return atomicfile.Write(path, data, mode)
}
