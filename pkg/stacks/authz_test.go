package stacks

import (
	"strings"
	"testing"
	"time"
)

func TestParseAuthzFailureMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want AuthzFailureMode
		err  string
	}{
		{"deny", AuthzFailDeny, ""},
		{" Allow ", AuthzFailAllow, ""},
		{"open", "", `authz failure mode "open": want deny or allow`},
		{"", "", "want deny or allow"},
	} {
		got, err := ParseAuthzFailureMode(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseAuthzFailureMode(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseAuthzFailureMode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// The timeout reaches Envoy's config as seconds: whole milliseconds only,
// and nothing Envoy would read as "no timeout".
func TestAuthzTimeout(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string // "" for rejected
	}{
		{DefaultAuthzTimeout, "5s"},
		{200 * time.Millisecond, "0.2s"},
		{1500 * time.Millisecond, "1.5s"},
		{time.Millisecond, "0.001s"},
		{MaxAuthzTimeout, "600s"},
		{0, ""},
		{-time.Second, ""},
		{1500 * time.Microsecond, ""},
		{MaxAuthzTimeout + time.Millisecond, ""},
	} {
		err := CheckAuthzTimeout(tc.d)
		if (err == nil) != (tc.want != "") {
			t.Errorf("CheckAuthzTimeout(%s) = %v", tc.d, err)
			continue
		}
		if got := (Gateway{Timeout: tc.d}).AuthzTimeout(); tc.want != "" && got != tc.want {
			t.Errorf("AuthzTimeout(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// The rendered gateway carries the settings and the names the sampler
// and the ladder read.
func TestRenderGateway(t *testing.T) {
	gw := Gateway{Name: "envoy", Stack: Stack3x, PathPrefix: "/", Listen: Endpoint{Loopback, 1}, Admin: Endpoint{Loopback, 2},
		ExtAuthz: MustEndpoint("127.0.0.1:3"), Backend: MustEndpoint("echo.authbench.svc:4"),
		Timeout: 250 * time.Millisecond, FailureMode: AuthzFailAllow, AccessLog: "/dev/stdout"}
	b, err := Render(ConfigGateway, gw)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"timeout: 0.25s", "failure_mode_allow: true", "stat_prefix: " + EnvoyStatPrefix,
		"cluster: " + EnvoyClusterExtAuthz, "cluster: " + EnvoyClusterBackend, "key: " + GatewayDetailsHeader,
		"{ address: 127.0.0.1, port_value: 2 }", "type: STATIC", "type: STRICT_DNS", "uri: http://127.0.0.1:3",
		"path: /dev/stdout", "authz_us=%FILTER_STATE(envoy.filters.http.ext_authz:FIELD:latency_us)%"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("rendered gateway lacks %q", want)
		}
	}
}

func TestParseEndpoint(t *testing.T) {
	for _, in := range []string{"127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000", ":"} {
		if e, err := ParseEndpoint(in); err == nil {
			t.Errorf("ParseEndpoint(%q) = %+v, want an error", in, e)
		}
	}
	if e, err := ParseEndpoint("127.0.0.1:8443"); err != nil || e != (Endpoint{Loopback, 8443}) {
		t.Errorf("ParseEndpoint = %+v, %v", e, err)
	}
}
