package auth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestRedactArgs(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"token value", []string{"authbench", "run", "--token", "abc123", "-n", "10"},
			[]string{"authbench", "run", "--token", "<redacted, 6 chars>", "-n", "10"}},
		{"token equals", []string{"authbench", "--token=abc123"}, []string{"authbench", "--token=<redacted, 6 chars>"}},
		{"single dash", []string{"x", "-token", "abc"}, []string{"x", "-token", "<redacted, 3 chars>"}},
		{"token file is not secret", []string{"x", "--token-file", "/run/tok", "--token-env=TOKEN"},
			[]string{"x", "--token-file", "/run/tok", "--token-env=TOKEN"}},
		{"authorization header", []string{"x", "-H", "Authorization: Bearer abc.def"},
			[]string{"x", "-H", "Authorization: Bearer <redacted, 7 chars>"}},
		{"cookie header long flag", []string{"x", "--header", "cookie:_oauth2_proxy=xyz"},
			[]string{"x", "--header", "cookie:<redacted, 17 chars>"}},
		{"header equals", []string{"x", "--header=Authorization: Basic dXNlcg=="},
			[]string{"x", "--header=Authorization: Basic <redacted, 8 chars>"}},
		{"header joined", []string{"x", "-HAuthorization: Bearer t"}, []string{"x", "-HAuthorization: Bearer <redacted, 1 chars>"}},
		{"ordinary header", []string{"x", "-H", "Accept: text/plain"}, []string{"x", "-H", "Accept: text/plain"}},
		{"hey basic auth", []string{"x", "-a", "alice:pw"}, []string{"x", "-a", "alice:<redacted, 2 chars>"}},
		{"url password", []string{"x", "https://alice:pw@127.0.0.1:8443/echo?x=1&access_token=t"},
			[]string{"x", "https://alice:REDACTED@127.0.0.1:8443/echo?x=1&access_token=REDACTED"}},
		{"url in flag", []string{"x", "--issuer=https://u:p@127.0.0.1/realms/r"}, []string{"x", "--issuer=https://u:REDACTED@127.0.0.1/realms/r"}},
		{"fragment token", []string{"https://127.0.0.1/cb#access_token=t&state=s"}, []string{"https://127.0.0.1/cb#access_token=REDACTED&state=s"}},
		{"plain url kept", []string{"https://127.0.0.1:8443/echo?a=b"}, []string{"https://127.0.0.1:8443/echo?a=b"}},
		{"flag at end", []string{"x", "--token"}, []string{"x", "--token"}},
		{"password flag", []string{"x", "--password", "pw", "--client-secret=cs"},
			[]string{"x", "--password", "<redacted, 2 chars>", "--client-secret=<redacted, 2 chars>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.in)
			got := RedactArgs(in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("RedactArgs(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if !slices.Equal(in, tt.in) {
				t.Errorf("RedactArgs modified its argument: %q", in)
			}
		})
	}
}

func TestRedactString(t *testing.T) {
	jwt := "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"
	tests := []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"known secret", "bad password hunter2!", []string{"hunter2"}, "bad password <redacted, 7 chars>!"},
		{"longest first", "abcdef", []string{"abc", "abcdef"}, "<redacted, 6 chars>"},
		{"every occurrence", "x=s1 y=s1", []string{"s1"}, "x=<redacted, 2 chars> y=<redacted, 2 chars>"},
		{"empty secret ignored", "text", []string{""}, "text"},
		{"jwt", "token " + jwt + " rejected", nil, "token <redacted, 54 chars> rejected"},
		{"bearer", "sent Authorization: Bearer sha256~abcdefghij", nil, "sent Authorization: Bearer <redacted, 17 chars>"},
		{"plain text kept", "connection refused", []string{"zzz"}, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactString(tt.in, tt.secrets...); got != tt.want {
				t.Errorf("RedactString() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestScrubberError(t *testing.T) {
	var s Scrubber
	s.Add("pw-1")
	err := s.Error(fmt.Errorf("login with pw-1: %w", context.DeadlineExceeded))
	if strings.Contains(err.Error(), "pw-1") {
		t.Errorf("scrubbed error = %q", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("scrubbed error lost errors.Is")
	}
	if errors.Unwrap(err) != nil {
		t.Error("scrubbed error unwraps to the unscrubbed one")
	}
	if s.Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
	_, statErr := os.Stat("/nonexistent-xyz")
	if !errors.Is(s.Error(statErr), os.ErrNotExist) {
		t.Error("scrubbed error lost os.ErrNotExist")
	}
}

func TestRedactHeader(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"Authorization", "Bearer abc", "Bearer <redacted, 3 chars>"},
		{"cookie", "a=b", "<redacted, 3 chars>"},
		{"X-Forwarded-Access-Token", "t", "<redacted, 1 chars>"},
		{"Accept", "text/plain", "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RedactHeader(tt.name, tt.value); got != tt.want {
				t.Errorf("RedactHeader(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
			}
		})
	}
}
