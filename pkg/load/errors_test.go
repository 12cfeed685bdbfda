package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// resettingServer reads each request and answers with a TCP RST.
func resettingServer(t *testing.T) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// silentServer accepts requests and never answers until the client leaves.
func silentServer(t *testing.T) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func tlsServer(t *testing.T) *httptest.Server {
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(s.Close)
	return s
}

func TestErrorClasses(t *testing.T) {
	for _, cl := range clients {
		for _, tc := range []struct {
			name    string
			url     func(t *testing.T) string
			class   string
			sample  string
			timeout time.Duration
		}{
			{"refused", closedPort, ClassRefused, "connection refused", time.Second},
			{"reset", resettingServer, ClassReset, "", time.Second},
			{"timeout", silentServer, ClassTimeout, "", 100 * time.Millisecond},
			{"tls unknown ca", func(t *testing.T) string { return tlsServer(t).URL }, ClassTLS, "certificate", time.Second},
		} {
			t.Run(cl.name+"/"+tc.name, func(t *testing.T) {
				a := attacker(t, plan.Client{Timeout: plan.Duration(tc.timeout)}, cl.opts...)
				m, r := runAttack(t, a, Request{URL: tc.url(t)}, Spec{Requests: 6, Concurrency: 3})
				if r.Requests != 6 || r.Errors[tc.class] != 6 || r.Successes != 0 || len(r.Status) != 0 {
					t.Errorf("requests %d errors %v samples %v status %v, want 6 %s", r.Requests, r.Errors, r.ErrorSamples, r.Status, tc.class)
				}
				if s := r.ErrorSamples[tc.class]; s == "" || !strings.Contains(s, tc.sample) {
					t.Errorf("sample %q, want it to mention %q", s, tc.sample)
				}
				if _, errs, _ := sumSeries(m.Series()); errs != 6 {
					t.Errorf("timeline has %d errors, want 6", errs)
				}
				if m.Histogram().TotalCount() != 0 || r.Latency.P50 != 0 || r.SuccessRate != 0 || r.GoodputRPS != 0 || r.ThroughputRPS <= 0 {
					t.Errorf("failed requests leaked into latency or goodput, or were not counted in throughput: %+v", r)
				}
			})
		}
	}
}

func TestStatusCodes(t *testing.T) {
	codes := []int{200, 401, 403, 503, 302}
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			var n atomic.Int64
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				code := codes[(n.Add(1)-1)%int64(len(codes))]
				if code == 302 {
					w.Header().Set("Location", "/login")
				}
				w.WriteHeader(code)
				fmt.Fprint(w, strings.Repeat("x", int(n.Load()%3)*5000)) // chunked sometimes
			}))
			t.Cleanup(s.Close)
			a := attacker(t, plan.Client{}, cl.opts...)
			m, r := runAttack(t, a, Request{URL: s.URL}, Spec{Requests: 50, Concurrency: 1})
			want := map[string]int64{"200": 10, "401": 10, "403": 10, "503": 10, "302": 10}
			if fmt.Sprint(r.Status) != fmt.Sprint(want) {
				t.Errorf("status %v, want %v (redirects must not be followed)", r.Status, want)
			}
			if r.Successes != 20 || r.SuccessRate != 0.4 || len(r.Errors) != 0 {
				t.Errorf("successes %d rate %g errors %v", r.Successes, r.SuccessRate, r.Errors)
			}
			if _, errs, auth := sumSeries(m.Series()); errs != 30 || auth != 20 {
				t.Errorf("timeline errors %d auth errors %d, want 30 and 20", errs, auth)
			}
			if m.Histogram().TotalCount() != 50 {
				t.Errorf("histogram holds %d answered requests, want 50", m.Histogram().TotalCount())
			}
		})
	}
}

func TestAllFailIsClean(t *testing.T) {
	for name, spec := range map[string]Spec{
		"closed": {Requests: 20, Concurrency: 4},
		"open":   {Requests: 20, Concurrency: 4, Rate: 1000},
		"empty":  {},
	} {
		t.Run(name, func(t *testing.T) {
			a := attacker(t, plan.Client{})
			m, r := runAttack(t, a, Request{URL: closedPort(t)}, spec)
			if r.Requests != spec.Requests || r.Errors[ClassRefused] != spec.Requests {
				t.Errorf("requests %d errors %v", r.Requests, r.Errors)
			}
			if r.Status == nil || r.Errors == nil {
				t.Error("status and errors must be empty objects, not null")
			}
			if m.Partial() {
				t.Error("a finished attack is not partial")
			}
		})
	}
}

func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"closed", Spec{Requests: 1_000_000, Concurrency: 4}},
		{"open", Spec{Requests: 1_000_000, Concurrency: 4, Rate: 200}},
		{"open waiting", Spec{Requests: 10, Concurrency: 4, Rate: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(20 * time.Millisecond)
				served.Add(1)
			}))
			t.Cleanup(s.Close)
			a := attacker(t, plan.Client{})
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			var p Progress
			start := time.Now()
			m := a.Attack(ctx, Request{URL: s.URL}, tc.spec, WithProgress(&p))
			r := m.Result()
			assertClean(t, r)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("cancelled attack took %s", took)
			}
			if !m.Partial() {
				t.Error("cancelled attack is not partial")
			}
			if r.Requests < 1 || r.Requests != served.Load() || r.Successes != r.Requests {
				t.Errorf("requests %d successes %d, server finished %d: in-flight requests must finish and count", r.Requests, r.Successes, served.Load())
			}
			if p.Done.Load() != r.Requests {
				t.Errorf("progress says %d done, result %d", p.Done.Load(), r.Requests)
			}
		})
	}
	t.Run("before start", func(t *testing.T) {
		s, served := countingServer(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m := attacker(t, plan.Client{}).Attack(ctx, Request{URL: s.URL}, Spec{Requests: 10, Concurrency: 2})
		if !m.Partial() || m.Result().Requests != 0 || served.Load() != 0 {
			t.Errorf("partial %v requests %d served %d", m.Partial(), m.Result().Requests, served.Load())
		}
	})
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, ClassDNS},
		{&net.DNSError{Err: "timeout", IsTimeout: true}, ClassDNS},
		{&opError{"connecting", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, ClassRefused},
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, ClassReset},
		{&opError{"writing request", os.NewSyscallError("write", syscall.EPIPE)}, ClassReset},
		{io.ErrUnexpectedEOF, ClassReset},
		{&opError{"reading response", os.ErrDeadlineExceeded}, ClassTimeout},
		{context.DeadlineExceeded, ClassTimeout},
		{&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, ClassTLS},
		{x509.HostnameError{Host: "h", Certificate: &x509.Certificate{}}, ClassTLS},
		{tls.AlertError(42), ClassTLS},
		{errors.New("tls: first record does not look like a TLS handshake"), ClassTLS},
		{&tokenError{errors.New("boom")}, ClassAuthToken},
		{errMalformed, ClassOther},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}
