package deploy

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/stacks"
)

// servingTLS returns the certificate already in the namespace's serving
// Secret (so that a second apply changes nothing), or a new one from a new
// CA: SANs localhost, 127.0.0.1 and the stacks' Service names.
func servingTLS(ctx context.Context, c *Client, ns plan.Namespace) (manifests.TLS, error) {
	code, b, err := c.Do(ctx, "GET", kubeapi.Path("api", "v1", "namespaces", ns.String(), "secrets", manifests.ServingSecret), "", nil)
	if err == nil && code == 200 {
		var s struct{ Data map[string]string }
		if json.Unmarshal(b, &s) == nil && s.Data["tls.crt"] != "" {
			dec := func(k string) []byte { v, _ := base64.StdEncoding.DecodeString(s.Data[k]); return v }
			return manifests.TLS{Cert: dec("tls.crt"), Key: dec("tls.key"), CA: dec("ca.crt")}, nil
		}
	}
	return newServingTLS(ns.String())
}

func newServingTLS(ns string) (manifests.TLS, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return manifests.TLS{}, err
	}
	now := time.Now().Add(-time.Minute)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "authbench-stacks-ca"},
		NotBefore: now, NotAfter: now.Add(365 * 24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, caKey.Public(), caKey)
	if err != nil {
		return manifests.TLS{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return manifests.TLS{}, err
	}
	names := []string{"localhost"}
	for _, s := range []string{stacks.Echo2x, stacks.Echo3x, stacks.HAProxy, stacks.Envoy, stacks.OAuth2Proxy,
		stacks.Echo3xOAuth, stacks.KubeAuthProxyOAuth, stacks.EnvoyOAuth} {
		names = append(names, s+"."+ns+".svc", s+"."+ns+".svc.cluster.local")
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now, NotAfter: now.Add(365 * 24 * time.Hour), DNSNames: names,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	caCert, _ := x509.ParseCertificate(caDER)
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, key.Public(), caKey)
	if err != nil {
		return manifests.TLS{}, err
	}
	kb, _ := x509.MarshalPKCS8PrivateKey(key)
	enc := func(t string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: t, Bytes: b}) }
	return manifests.TLS{Cert: enc("CERTIFICATE", der), Key: enc("PRIVATE KEY", kb), CA: enc("CERTIFICATE", caDER)}, nil
}
