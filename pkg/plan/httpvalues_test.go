package plan

import (
	"bufio"
	"bytes"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestCheckHTTPValues(t *testing.T) {
	for _, tc := range []struct {
		what string
		err  error
		ok   bool
	}{
		{"name X-Request-Id", CheckHeaderName("X-Request-Id"), true},
		{"name with space", CheckHeaderName("Bad Name"), false},
		{"name with colon", CheckHeaderName("X:Y"), false},
		{"empty name", CheckHeaderName(""), false},
		{"value with tab", CheckHeaderValue("X-A", "a\tb"), true},
		{"value with CRLF", CheckHeaderValue("X-A", "a\r\nX-Injected: yes"), false},
		{"value with NUL", CheckHeaderValue("X-A", "a\x00b"), false},
		{"Host header with a bad port", CheckHeaderValue("host", "echo.example:70000"), false},
		{"method GET", CheckMethod("GET"), true},
		{"method with space", CheckMethod("GE T"), false},
		{"host", CheckHost("echo.example"), true},
		{"host:port", CheckHost("echo.example:8443"), true},
		{"[v6]:port", CheckHost("[::1]:8443"), true},
		{"[v6]", CheckHost("[::1]"), true},
		{"bare v6", CheckHost("::1"), false},
		{"host with CRLF", CheckHost("evil\r\nX-Injected: yes"), false},
		{"host with userinfo", CheckHost("user@echo.example"), false},
		{"host with a path", CheckHost("echo.example/x"), false},
		{"port 0", CheckHost("echo.example:0"), false},
		{"port 70000", CheckHost("echo.example:70000"), false},
		{"empty port", CheckHost("echo.example:"), false},
		{"no host name", CheckHost(":80"), false},
		{"rate 500", CheckRate(500), true},
		{"rate at the bound", CheckRate(MaxRate), true},
		{"rate over the bound", CheckRate(MaxRate * 1.01), false},
		{"rate 1e300", CheckRate(1e300), false},
		{"rate +Inf", CheckRate(math.Inf(1)), false},
		{"rate NaN", CheckRate(math.NaN()), false},
		{"rate 0", CheckRate(0), false},
		{"rate -5", CheckRate(-5), false},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if (tc.err == nil) != tc.ok {
				t.Errorf("got %v, want ok=%v", tc.err, tc.ok)
			}
		})
	}
}

// TestCheckHeaderValueNotQuoted: a refused value may be a credential.
func TestCheckHeaderValueNotQuoted(t *testing.T) {
	err := CheckHeaderValue("Authorization", "Bearer s3cret\r\n")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("got %v, want an error without the value", err)
	}
}

func TestValidateTargets(t *testing.T) {
	p := &Plan{Targets: []Target{{
		URL: "http://127.0.0.1:1/", Method: "GE T", Host: "evil\r\nX: y",
		Headers: []Header{{Name: "X-A", Value: "a\nb"}},
	}}}
	p.Give(FieldTargetMethod(0), "-m")
	p.Give(FieldTargetHost(0), "s.yaml:4")
	err := p.Validate()
	for _, want := range []string{"method (-m): ", "s.yaml:4: targets[0].host: ", "targets[0].headers: "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q in it", err, want)
		}
	}
}

func TestValidateRequestsAndDuration(t *testing.T) {
	p := &Plan{Targets: []Target{{URL: "http://127.0.0.1:1/"}}, Load: Load{Requests: 5, Duration: Duration(time.Second)}}
	p.Give(FieldRequests, "-n")
	p.Give(FieldDuration, "-z")
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "give -n or -z, not both") {
		t.Errorf("got %v", err)
	}
}

func TestValidateFiniteSLO(t *testing.T) {
	for _, slo := range []*SLO{{Throughput: math.NaN()}, {Throughput: math.Inf(1)}, {SuccessRate: math.NaN()}} {
		p := &Plan{Targets: []Target{{URL: "http://127.0.0.1:1/"}}, SLO: slo}
		p.Give(FieldSLOThroughput, "--slo")
		p.Give(FieldSLOSuccessRate, "--slo")
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "finite") {
			t.Errorf("%+v: got %v", slo, err)
		}
	}
}

func TestValidateURLPort(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{{"http://127.0.0.1:65535/", true}, {"http://127.0.0.1:70000/", false}, {"http://127.0.0.1:0/", false}} {
		if err := ValidateURL(tc.url); (err == nil) != tc.ok {
			t.Errorf("%s: got %v, want ok=%v", tc.url, err, tc.ok)
		}
	}
}

// FuzzHTTPValues holds the plan's checks to the standard library's
// behaviour: a header, method and Host the plan accepts travel through
// net/http's request writer and parser unchanged and alone; a header or
// method the plan refuses is one net/http's parser or NewRequest refuses,
// or one that would not arrive as written; an accepted rate has a period
// the engine can schedule.
func FuzzHTTPValues(f *testing.F) {
	f.Add("X-Request-Id", "abc", "echo.example:8443", "GET", 500.0)
	f.Add("Bad Name", "a\r\nX-Injected: yes", "evil\r\nX: y", "GE T", math.Inf(1))
	f.Add("X", "\x00", "h:70000", "", math.NaN())
	f.Add("X", " a ", "[::1]:1", "PURGE", 1e300)
	f.Fuzz(func(t *testing.T, name, value, host, method string, rate float64) {
		headerAgrees(t, name, value)
		methodAgrees(t, method)
		hostAgrees(t, host)
		if CheckRate(rate) == nil && !(float64(time.Second)/rate >= 100) {
			t.Errorf("rate %g accepted with a period under 100 ns", rate)
		}
	})
}

// roundTrip writes a request with header name: value and Host host
// through net/http and reads it back.
func roundTrip(name, value, host string) (*http.Request, error) {
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	if name != "" {
		req.Header[name] = []string{value}
	}
	req.Host = host
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		return nil, err
	}
	return http.ReadRequest(bufio.NewReader(&buf))
}

func headerAgrees(t *testing.T, name, value string) {
	err := CheckHeader(Header{Name: name, Value: value})
	if strings.EqualFold(name, "Host") {
		return
	}
	got, rerr := roundTrip(name, value, "")
	arrived := rerr == nil && len(got.Header.Values(name)) == 1 &&
		got.Header.Get(name) == strings.Trim(value, " \t") && len(got.Header) <= 2 // name and User-Agent
	if err == nil && !arrived {
		t.Errorf("accepted header %q: %q did not arrive alone and unchanged (%v)", name, value, rerr)
	}
	if err != nil && arrived && CheckHeaderName(name) != nil {
		t.Errorf("refused header name %q, which net/http carries unchanged", name)
	}
}

func methodAgrees(t *testing.T, method string) {
	if method == "" {
		return
	}
	_, nerr := http.NewRequest(method, "http://127.0.0.1/", nil)
	if (CheckMethod(method) == nil) != (nerr == nil) {
		t.Errorf("method %q: plan says %v, net/http says %v", method, CheckMethod(method), nerr)
	}
}

func hostAgrees(t *testing.T, host string) {
	if CheckHost(host) != nil {
		return
	}
	got, err := roundTrip("", "", host)
	if err != nil || got.Host != host {
		t.Errorf("accepted Host %q arrived as %v (%v)", host, got, err)
	}
	if u, err := url.Parse("http://" + host + "/"); err != nil || u.Host != host {
		t.Errorf("accepted Host %q is not a URL's host (%v)", host, err)
	}
}
