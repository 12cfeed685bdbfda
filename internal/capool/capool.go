// Package capool builds the certificate pools of authbench's TLS clients
// from PEM files. Every client reads its CA here, so that a file without a
// certificate fails with its name when the client is made, instead of as
// an unknown authority at its first request.
package capool

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"github.com/authbench/authbench/internal/boundedio"
)

// File returns a pool of file's PEM certificates, added to the host's own
// when system is true: a user's CA file extends what the host trusts,
// while a lab's clients trust the lab's CA alone.
func File(file string, system bool) (*x509.CertPool, error) {
	pem, err := boundedio.ReadFile(file, boundedio.PEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if system {
		if sys, err := x509.SystemCertPool(); err == nil && sys != nil {
			pool = sys
		}
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no PEM certificate in %s", file)
	}
	return pool, nil
}

// PEM returns a pool of pem's certificates alone; from names where they
// came from, for the error.
func PEM(pem []byte, from string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no PEM certificate in %s", from)
	}
	return pool, nil
}

// TLSConfig is a client's TLS configuration: the host's CAs plus caFile's
// when given, or no verification at all when insecure (the user's opt-in).
// TLS 1.2 is the least it accepts, as Go's client default.
func TLSConfig(caFile string, insecure bool) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: insecure} //nolint:gosec // opt-in
	if caFile != "" {
		pool, err := File(caFile, true)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	return tc, nil
}
