package plan

// Values that reach the wire: a header name, a header value, a method, a
// Host and a rate. Each check is the one the CLI, the scenario decoder and
// Validate all use, so that a value that would inject a header, fail every
// request or never let the engine stop is refused before anything is sent.
// Errors never quote a header value: it may be a credential.

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// MaxRate is the highest rate the open loop accepts, in requests per
// second. The engine schedules request k at start+k*period in integer
// nanoseconds: at 10,000,000 requests per second the period is 100 ns, so
// truncating each intended send time to the nanosecond moves it by under
// 1% of a period, and one host's engine is far below that rate anyway
// (bench/load_attack measures the engine in the hundreds of thousands).
// A higher rate only hides a typo (-q 1e300) or an overflow.
const MaxRate = 10_000_000

// CheckRate reports why r is not an open-loop rate: it must be finite,
// positive and at most MaxRate requests per second.
func CheckRate(r float64) error {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return fmt.Errorf("must be a finite number of requests per second, got %g", r)
	case r <= 0:
		return fmt.Errorf("must be more than 0 requests per second, got %g", r)
	case r > MaxRate:
		return fmt.Errorf("must be at most %d requests per second (the engine schedules in nanoseconds), got %g", MaxRate, r)
	}
	return nil
}

// tokenChars is what an RFC 9110 token may hold besides letters and digits.
const tokenChars = "!#$%&'*+-.^_`|~"

// CheckHeaderName reports why s is not a header field name: an RFC 9110
// token (httpguts.ValidHeaderFieldName, net/http's own check).
func CheckHeaderName(s string) error {
	if !httpguts.ValidHeaderFieldName(s) {
		return fmt.Errorf("header name %q is not a valid HTTP header name (a token: letters, digits and %s)", s, tokenChars)
	}
	return nil
}

// CheckHeaderValue reports why s is not a value for header name: an RFC
// 9110 field value, so no CR, LF, NUL or other control character but tab
// (httpguts.ValidHeaderFieldValue). A Host header must be a valid host.
// The value is never quoted: it may be a credential.
func CheckHeaderValue(name, s string) error {
	if !httpguts.ValidHeaderFieldValue(s) {
		return fmt.Errorf("the value of header %q has a line break or control character", name)
	}
	if strings.EqualFold(name, "Host") {
		return CheckHost(s)
	}
	return nil
}

// CheckHeader checks a header's name and value.
func CheckHeader(h Header) error {
	if err := CheckHeaderName(h.Name); err != nil {
		return err
	}
	return CheckHeaderValue(h.Name, h.Value)
}

// CheckMethod reports why s is not an HTTP method: a token.
func CheckMethod(s string) error {
	if !httpguts.ValidHeaderFieldName(s) { // a method is a token too
		return fmt.Errorf("%q is not an HTTP method (a token: letters, digits and %s)", s, tokenChars)
	}
	return nil
}

// CheckHost reports why s is not a Host header value: host[:port], with a
// port from 1 to 65535, in the bytes a URI host may hold
// (httpguts.ValidHostHeader), without user information.
func CheckHost(s string) error {
	bad := func(why string) error {
		return fmt.Errorf("want a host such as echo.example or echo.example:8443, got %q: %s", s, why)
	}
	switch {
	case s == "":
		return bad("empty")
	case !httpguts.ValidHostHeader(s):
		return bad("it holds a character a host cannot")
	case strings.Contains(s, "@"):
		return bad("user information does not belong in a Host")
	}
	host, port, err := splitHostPort(s)
	if err != nil {
		return bad(err.Error())
	}
	if host == "" {
		return bad("no host name")
	}
	if err := CheckPort(port); port != "" && err != nil {
		return bad(err.Error())
	}
	return nil
}

// splitHostPort splits "host", "host:port", "[v6]" and "[v6]:port".
func splitHostPort(s string) (host, port string, err error) {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		return s[1 : len(s)-1], "", nil
	}
	if !strings.Contains(s, ":") {
		return s, "", nil
	}
	host, port, err = net.SplitHostPort(s)
	var ae *net.AddrError
	switch {
	case errors.As(err, &ae):
		return "", "", errors.New(ae.Err)
	case err != nil:
		return "", "", err
	case port == "":
		return "", "", errors.New("no port after the colon")
	}
	return host, port, nil
}

// CheckPort reports why s is not a TCP port: a number from 1 to 65535.
func CheckPort(s string) error {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return nil
}
