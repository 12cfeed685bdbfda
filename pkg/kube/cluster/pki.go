package cluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certLifetime is long enough for any lab; a cluster's PKI is made anew at
// every Up.
const certLifetime = 30 * 24 * time.Hour

// pkiCert is one certificate to issue.
type pkiCert struct {
	file   string // DIR/pki/FILE.crt and .key
	cn     string
	orgs   []string
	server bool // serving cert for 127.0.0.1 and the in-cluster names
}

var pkiCerts = []pkiCert{
	{file: "apiserver", cn: "kube-apiserver", server: true},
	{file: "kubelet", cn: "system:node:" + NodeName, orgs: []string{"system:nodes"}, server: true},
	{file: "admin", cn: "authbench-admin", orgs: []string{"system:masters"}},
	{file: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"}},
	{file: "controller-manager", cn: "system:kube-controller-manager"},
	{file: "scheduler", cn: "system:kube-scheduler"},
}

// writePKI makes the CA, every pkiCert and the service-account key pair
// under dir, keys at mode 0600.
func writePKI(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	caTmpl := certTemplate(pkix.Name{CommonName: "authbench-kube-ca"})
	caTmpl.IsCA, caTmpl.BasicConstraintsValid = true, true
	caTmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return fmt.Errorf("creating the cluster CA: %w", err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	if err := writePair(dir, "ca", caDER, caKey); err != nil {
		return err
	}
	for _, c := range pkiCerts {
		if err := issue(dir, c, ca, caKey); err != nil {
			return fmt.Errorf("issuing %s: %w", c.file, err)
		}
	}
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, _ := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err := writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub, 0o644); err != nil {
		return err
	}
	return writeKey(filepath.Join(dir, "sa.key"), sa)
}

func certTemplate(name pkix.Name) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	now := time.Now().Add(-time.Minute)
	return &x509.Certificate{SerialNumber: serial, Subject: name, NotBefore: now, NotAfter: now.Add(certLifetime)}
}

func issue(dir string, c pkiCert, ca *x509.Certificate, caKey crypto.Signer) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	t := certTemplate(pkix.Name{CommonName: c.cn, Organization: c.orgs})
	t.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	t.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if c.server {
		t.ExtKeyUsage = append(t.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		t.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.ParseIP(serviceIP)}
		t.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}
	}
	der, err := x509.CreateCertificate(rand.Reader, t, ca, key.Public(), caKey)
	if err != nil {
		return err
	}
	return writePair(dir, c.file, der, key)
}

func writePair(dir, name string, der []byte, key crypto.Signer) error {
	if err := writePEM(filepath.Join(dir, name+".crt"), "CERTIFICATE", der, 0o644); err != nil {
		return err
	}
	return writeKey(filepath.Join(dir, name+".key"), key)
}

func writeKey(path string, key crypto.Signer) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "PRIVATE KEY", der, 0o600)
}

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	b := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	if err := os.WriteFile(path, b, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Chmod(path, mode)
}
