package load

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// target is a Request resolved once per attack for the HTTP/1.1 client.
type target struct {
	scheme     string
	host       string // for DNS and SNI
	port       uint16
	key        string // idle-connection pool key
	tls        *tls.Config
	prefix     []byte // request line and headers, without Authorization and the final CRLF
	body       []byte
	inline     bool // body small enough to copy after the headers
	head       bool // HEAD: the response has no body
	replayable bool // safe to resend on a stale keep-alive connection
	closeConn  bool // Connection: close
	token      bool
}

// inlineBodyMax is the largest body copied into the request buffer; a
// larger one is written separately so that workers don't each hold a copy.
const inlineBodyMax = 16 << 10

func newTarget(a *Attacker, r Request) (*target, error) {
	u, err := url.Parse(r.URL)
	if err != nil {
		return nil, fmt.Errorf("parsing url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("parsing url %q: scheme must be http or https", r.URL)
	}
	t := &target{scheme: u.Scheme, host: u.Hostname(), body: r.Body, token: r.Token != nil}
	if t.host == "" {
		return nil, fmt.Errorf("parsing url %q: no host", r.URL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("parsing url %q: bad port %q", r.URL, port)
	}
	t.port = uint16(p)
	if u.Scheme == "https" {
		t.tls = a.tls.Clone()
		if t.tls.ServerName == "" {
			t.tls.ServerName = t.host
		}
		t.tls.NextProtos = []string{"http/1.1"}
	}
	t.key = u.Scheme + "://" + net.JoinHostPort(t.host, port)
	method := requestMethod(r.Method)
	if !validToken(method) {
		return nil, fmt.Errorf("invalid method %q", method)
	}
	t.head = method == http.MethodHead
	t.replayable = replayable(method, r.Header)
	t.closeConn = a.client.DisableKeepAlive || wantsClose(r.Header)
	t.inline = len(r.Body) <= inlineBodyMax
	t.prefix, err = requestPrefix(a, r, u, method)
	return t, err
}

// requestPrefix renders everything up to the Authorization header.
func requestPrefix(a *Attacker, r Request, u *url.URL, method string) ([]byte, error) {
	host := r.Host
	if host == "" {
		host = r.Header.Get("Host")
	}
	if host == "" {
		host = strings.TrimSuffix(u.Host, ":")
	}
	if !validValue(host) {
		// The plan refuses such a Host; the engine renders raw bytes, so a
		// line break here would be a header of the caller's choosing.
		return nil, fmt.Errorf("invalid Host %q", host)
	}
	b := fmt.Appendf(nil, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), host)
	if r.Header.Get("User-Agent") == "" && a.userAgent != "" {
		b = fmt.Appendf(b, "User-Agent: %s\r\n", a.userAgent)
	}
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if skipHeader(k, r.Token != nil) {
			continue
		}
		if !validToken(k) {
			return nil, fmt.Errorf("invalid header name %q", k)
		}
		for _, v := range r.Header[k] {
			if !validValue(v) {
				return nil, fmt.Errorf("invalid value for header %q", k)
			}
			b = fmt.Appendf(b, "%s: %s\r\n", k, v)
		}
	}
	if len(r.Body) > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		b = fmt.Appendf(b, "Content-Length: %d\r\n", len(r.Body))
	}
	if a.client.DisableKeepAlive || wantsClose(r.Header) {
		b = append(b, "Connection: close\r\n"...)
	}
	if auth := basicAuth(u, r); auth != "" {
		b = append(b, auth...)
	}
	return b, nil
}

// requestMethod upper-cases the method, as curl and hey send it: "-m head"
// means HEAD, whose response has no body. Default GET.
func requestMethod(m string) string {
	if m == "" {
		return http.MethodGet
	}
	return strings.ToUpper(m)
}

// wantsClose reports a "Connection: close" among the request's headers: a
// new connection per request, as net/http and hey do.
func wantsClose(h http.Header) bool {
	for _, v := range h.Values("Connection") {
		if hasToken([]byte(v), "close") {
			return true
		}
	}
	return false
}

// basicAuth renders the URL's credentials (http://user:pw@host/) as an
// Authorization header line, as net/http does, unless the request carries
// its own Authorization or a token. Empty when there is nothing to send.
func basicAuth(u *url.URL, r Request) string {
	if u.User == nil || r.Token != nil || r.Header.Get("Authorization") != "" {
		return ""
	}
	pw, _ := u.User.Password()
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)) + "\r\n"
}

// skipHeader drops headers the client owns, as net/http does.
func skipHeader(k string, token bool) bool {
	switch http.CanonicalHeaderKey(k) {
	case "Host", "Content-Length", "Transfer-Encoding", "Connection":
		return true
	case "Authorization":
		return token
	}
	return false
}

// replayable mirrors net/http: only idempotent requests are resent after a
// keep-alive connection turns out to be closed.
func replayable(method string, h http.Header) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return h.Get("Idempotency-Key") != "" || h.Get("X-Idempotency-Key") != ""
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// validValue rejects control characters, which would let a value inject
// headers into the request.
func validValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// render builds the full request bytes for a token into buf.
func (t *target) render(buf []byte, token string) []byte {
	buf = append(buf[:0], t.prefix...)
	if t.token {
		buf = append(buf, "Authorization: Bearer "...)
		buf = append(buf, token...)
		buf = append(buf, "\r\n"...)
	}
	buf = append(buf, "\r\n"...)
	if t.inline {
		buf = append(buf, t.body...)
	}
	return buf
}
