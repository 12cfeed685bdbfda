package redact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
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
			got := Args(in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Args(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if !slices.Equal(in, tt.in) {
				t.Errorf("RedactArgs modified its argument: %q", in)
			}
		})
	}
}

func TestText(t *testing.T) {
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
			if got := Text(tt.in, tt.secrets...); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHTML(t *testing.T) {
	jwt := "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"
	tests := []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"text", "<p>token s3cr3t&amp;x</p>", []string{"s3cr3t&x"}, "<p>token REDACTED</p>"},
		{"attribute", `<td title="a&#34;b&lt;c">`, []string{`a"b<c`}, `<td title="REDACTED">`},
		{"chart json", `<script>{"label":"a\u003cb"}</script>`, []string{"a<b"}, `<script>{"label":"REDACTED"}</script>`},
		{"raw", "x=hunter2", []string{"hunter2"}, "x=REDACTED"},
		{"jwt", "<li>" + jwt + "</li>", nil, "<li>REDACTED</li>"},
		{"bearer keeps its scheme", "<li>Bearer sha256~abcdefghij</li>", nil, "<li>Bearer REDACTED</li>"},
		{"url password", "<a>https://u:pw@h/</a>", nil, "<a>https://u:REDACTED@h/</a>"},
		{"plain page kept", "<p>connection refused</p>", []string{"zzz"}, "<p>connection refused</p>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HTML(tt.in, tt.secrets...)
			if got != tt.want {
				t.Errorf("HTML() = %q, want %q", got, tt.want)
			}
			if HTML(got, tt.secrets...) != got {
				t.Errorf("HTML is not idempotent on %q", got)
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

func TestHeader(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"Authorization", "Bearer abc", "Bearer <redacted, 3 chars>"},
		{"cookie", "a=b", "<redacted, 3 chars>"},
		{"X-Forwarded-Access-Token", "t", "<redacted, 1 chars>"},
		{"Accept", "text/plain", "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Header(tt.name, tt.value); got != tt.want {
				t.Errorf("Header(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
			}
		})
	}
}

// TestOneRedaction holds the cases the report's own redaction used to
// cover, now written in the one spelling.
func TestOneRedaction(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"query token", URL("https://h/p?a=1&access_token=abc123456&b=2"), "https://h/p?a=1&access_token=REDACTED&b=2"},
		{"password", URL("https://u:hunter22@h/p"), "https://u:REDACTED@h/p"},
		{"api key param", URL("https://h/p?api_key=k&sig=s&x=1"), "https://h/p?api_key=REDACTED&sig=REDACTED&x=1"},
		{"already redacted url", URL("https://u:REDACTED@h/p?token=REDACTED"), "https://u:REDACTED@h/p?token=REDACTED"},
		{"relative url kept", URL("/p?token=x"), "/p?token=x"},
		{"api key header", Header("X-Api-Key", "abcdef123456"), "<redacted, 12 chars>"},
		{"proxy authorization", Header("Proxy-Authorization", "Basic dXNlcg=="), "Basic <redacted, 8 chars>"},
		{"set-cookie", Header("Set-Cookie", "s=1"), "<redacted, 3 chars>"},
		{"jwt in error text", Text("got eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl here"), "got <redacted, 49 chars> here"},
		{"url password in text", Text(`Get "http://alice:s3cret@127.0.0.1:1/x": refused`), `Get "http://alice:REDACTED@127.0.0.1:1/x": refused`},
		{"url without password in text", Text(`Get "http://127.0.0.1:1/x": refused`), `Get "http://127.0.0.1:1/x": refused`},
		{"scheme kept", Value("Bearer abc"), "Bearer <redacted, 3 chars>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// TestArgsIdempotent: a command line recorded redacted and redacted again
// by a report must not change (nor nest placeholders).
func TestArgsIdempotent(t *testing.T) {
	in := []string{"authbench", "run", "--token", "abc123", "-H", "Authorization: Bearer xyz", "-a", "u:pw",
		"--client-secret=cs", "https://u:p@127.0.0.1/?token=t"}
	once := Args(in)
	if twice := Args(once); !slices.Equal(once, twice) {
		t.Errorf("Args is not idempotent:\n once %q\ntwice %q", once, twice)
	}
}
