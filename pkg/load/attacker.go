package load

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/pkg/plan"
)

// DefaultUserAgent is sent unless the request's headers set one.
const DefaultUserAgent = "authbench"

// Attacker sends attacks. It holds what every attack shares: TLS settings,
// the client timeout and idle connections. It is safe for concurrent use,
// though attacks usually run one after the other.
type Attacker struct {
	client    plan.Client
	timeout   time.Duration
	tls       *tls.Config
	userAgent string
	stdOnly   bool
	path      IOPath
	std       *http.Client
	pool      connPool
}

// Option configures an Attacker.
type Option func(*Attacker)

// WithStdClient sends HTTP/1.1 through net/http instead of the engine's own
// client: slower, but a cross-check of the fast path and an escape hatch for
// a server the fast client cannot talk to.
func WithStdClient() Option { return func(a *Attacker) { a.stdOnly = true } }

// WithUserAgent sets the User-Agent sent when the request sets none.
// Default DefaultUserAgent.
func WithUserAgent(ua string) Option { return func(a *Attacker) { a.userAgent = ua } }

// NewAttacker builds the client described by c: TLS verified unless
// Insecure, CACert trusted besides the system's CAs, an optional client
// certificate, HTTP/2 only when asked, keep-alive unless disabled, and
// c.Timeout per request (dial, write and the whole response).
func NewAttacker(c plan.Client, opts ...Option) (*Attacker, error) {
	cfg, err := tlsConfig(c)
	if err != nil {
		return nil, err
	}
	a := &Attacker{client: c, timeout: c.Timeout.D(), tls: cfg, userAgent: DefaultUserAgent}
	if a.timeout <= 0 {
		a.timeout = plan.DefaultTimeout.D()
	}
	for _, o := range opts {
		o(a)
	}
	a.std = a.stdClient()
	return a, nil
}

// useStd reports whether attacks go through net/http.
func (a *Attacker) useStd() bool { return a.stdOnly || a.client.HTTP2 }

// Close closes idle connections. Attacks may still be run afterwards.
func (a *Attacker) Close() {
	a.pool.closeAll()
	a.std.CloseIdleConnections()
}

func tlsConfig(c plan.Client) (*tls.Config, error) {
	cfg, err := capool.TLSConfig(c.CACert, c.Insecure)
	if err != nil {
		return nil, fmt.Errorf("loading ca certificate: %w", err)
	}
	if c.Cert != "" || c.Key != "" {
		if c.Cert == "" || c.Key == "" {
			return nil, errors.New("loading client certificate: cert and key must be given together")
		}
		pair, err := tls.LoadX509KeyPair(c.Cert, c.Key)
		if err != nil {
			return nil, fmt.Errorf("loading client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// stdClient is net/http's client for HTTP/2, WithStdClient and probes.
// Redirects are not followed: a 302 to a login page is the answer being
// measured, not a detour to take. Proxies from the environment are ignored
// because traffic must go straight to the target.
func (a *Attacker) stdClient() *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     a.tls.Clone(),
		MaxIdleConnsPerHost: 1 << 16,
		IdleConnTimeout:     90 * time.Second,
		DisableKeepAlives:   a.client.DisableKeepAlive,
		// The body is discarded, so asking for compression would only
		// add server CPU that the fast client does not ask for either.
		DisableCompression: true,
	}
	if a.client.HTTP2 {
		// HTTP/2 only, with no silent fallback to HTTP/1.1: h2 by ALPN over
		// TLS, prior-knowledge h2c over plain TCP.
		var p http.Protocols
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true)
		tr.Protocols = &p
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       a.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
