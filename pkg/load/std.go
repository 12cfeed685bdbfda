package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// std is one worker's net/http client, for HTTP/2 and WithStdClient. It
// reuses one *http.Request and times phases with httptrace like hey. The
// transport may still read a request's body and headers after RoundTrip
// returns, so neither is ever modified in place: a token change makes a new
// request, and each request gets its own body reader.
type std struct {
	a     *Attacker
	ph    *phaseSet
	req   *http.Request
	data  []byte
	token bool
	tok   string
	ok    bool // req carries tok
	st    stamps
}

// stamps are httptrace times (ns since epoch, 0 unset). net/http calls
// some hooks from its own goroutines, hence atomics.
type stamps struct {
	dnsStart, dnsDone, connStart, connDone, tlsStart, tlsDone atomic.Int64
	gotConn, wrote, firstByte                                 atomic.Int64
}

func (s *stamps) reset() {
	for _, p := range []*atomic.Int64{&s.dnsStart, &s.dnsDone, &s.connStart, &s.connDone, &s.tlsStart, &s.tlsDone, &s.gotConn, &s.wrote, &s.firstByte} {
		p.Store(0)
	}
}

func (s *stamps) trace() *httptrace.ClientTrace {
	set := func(p *atomic.Int64) { p.Store(now()) }
	return &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { set(&s.dnsStart) },
		DNSDone:              func(httptrace.DNSDoneInfo) { set(&s.dnsDone) },
		ConnectStart:         func(string, string) { set(&s.connStart) },
		ConnectDone:          func(string, string, error) { set(&s.connDone) },
		TLSHandshakeStart:    func() { set(&s.tlsStart) },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { set(&s.tlsDone) },
		GotConn:              func(httptrace.GotConnInfo) { set(&s.gotConn) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { set(&s.wrote) },
		GotFirstResponseByte: func() { set(&s.firstByte) },
	}
}

func newStd(a *Attacker, r Request, ph *phaseSet) (*std, error) {
	s := &std{a: a, ph: ph, data: r.Body, token: r.Token != nil}
	ctx := httptrace.WithClientTrace(context.Background(), s.st.trace())
	method := requestMethod(r.Method)
	req, err := http.NewRequestWithContext(ctx, method, r.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header = r.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if req.Header.Get("User-Agent") == "" && a.userAgent != "" {
		req.Header.Set("User-Agent", a.userAgent)
	}
	req.Host = r.Host
	if req.Host == "" {
		req.Host = req.Header.Get("Host")
	}
	if !validValue(req.Host) {
		// net/http would send an empty Host instead: a different request
		// from the one asked for.
		return nil, fmt.Errorf("invalid Host %q", req.Host)
	}
	if len(r.Body) > 0 {
		req.ContentLength = int64(len(r.Body))
		body := r.Body
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	s.req = req
	return s, nil
}

func (s *std) do(token string, _ int64) (int, error) {
	if s.token && (!s.ok || token != s.tok) {
		if !validValue(token) {
			return 0, &tokenError{errBadToken}
		}
		req := *s.req
		req.Header = s.req.Header.Clone()
		req.Header.Set("Authorization", "Bearer "+token)
		s.req, s.tok, s.ok = &req, token, true
	}
	req := s.req
	if len(s.data) > 0 {
		r := *s.req
		r.Body = io.NopCloser(bytes.NewReader(s.data))
		req = &r
	}
	s.st.reset()
	res, err := s.a.std.Do(req)
	if err != nil {
		s.phases(0)
		return 0, err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	s.phases(now())
	if err != nil {
		return 0, &opError{"reading response", err}
	}
	return withAnswer(res.StatusCode, answerOf([]byte(res.Header.Get(GatewayDetailsHeader)))), nil
}

func (s *std) phases(end int64) {
	st := &s.st
	span := func(p phase, a, b *atomic.Int64) {
		if x, y := a.Load(), b.Load(); x > 0 && y >= x {
			s.ph[p].add(y - x)
		}
	}
	span(phaseDNS, &st.dnsStart, &st.dnsDone)
	span(phaseConnect, &st.connStart, &st.connDone)
	span(phaseTLS, &st.tlsStart, &st.tlsDone)
	span(phaseWrite, &st.gotConn, &st.wrote)
	span(phaseWait, &st.wrote, &st.firstByte)
	if fb := st.firstByte.Load(); fb > 0 && end >= fb {
		s.ph[phaseRead].add(end - fb)
	}
}

func (s *std) release() {}
