package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// Error classes of failed requests (Result.Errors keys).
const (
	ClassRefused   = "refused"    // nothing listening
	ClassReset     = "reset"      // the peer reset or closed the connection mid-request
	ClassTimeout   = "timeout"    // no complete answer within the client timeout
	ClassTLS       = "tls"        // handshake or certificate failure
	ClassDNS       = "dns"        // name resolution failed
	ClassOther     = "other"      // anything else, e.g. a malformed response
	ClassAuthToken = "auth-token" // the token source failed; nothing was sent
)

// tokenError wraps a token source's failure.
type tokenError struct{ err error }

func (e *tokenError) Error() string { return "getting token: " + e.err.Error() }
func (e *tokenError) Unwrap() error { return e.err }

// classify names the class of a failed request.
func classify(err error) string {
	var (
		te   *tokenError
		dns  *net.DNSError
		cert *tls.CertificateVerificationError
		ua   x509.UnknownAuthorityError
		he   x509.HostnameError
		ci   x509.CertificateInvalidError
		rh   tls.RecordHeaderError
		al   tls.AlertError
	)
	switch {
	case errors.As(err, &te):
		return ClassAuthToken
	case errors.As(err, &dns):
		return ClassDNS
	case errors.As(err, &cert), errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci),
		errors.As(err, &rh), errors.As(err, &al):
		return ClassTLS
	case isTimeout(err):
		return ClassTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return ClassRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ClassReset
	case strings.Contains(err.Error(), "tls: "):
		return ClassTLS
	}
	return ClassOther
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}
