package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestTextCredentials: what a client's error or a server's echo carries
// (URLs the parser refuses, Basic credentials, token parameters in forms
// and JSON) leaves Text redacted, and prose stays as written.
func TestTextCredentials(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("admin:S3CRETpw"))
	tests := []struct{ name, in, want string }{
		{"client error with a query token",
			`Get "http://127.0.0.1:1/x?a=1&access_token=S3CRET": dial tcp 127.0.0.1:1: connect: connection refused`,
			`Get "http://127.0.0.1:1/x?a=1&access_token=REDACTED": dial tcp 127.0.0.1:1: connect: connection refused`},
		{"unparseable url", `parse "http://127.0.0.1/%zz?token=S3CRET": invalid URL escape "%zz"`,
			`parse "http://127.0.0.1/%zz?token=REDACTED": invalid URL escape "%zz"`},
		{"bad port with a password", `parse "http://u:S3CRET@127.0.0.1:99999/": invalid port`,
			`parse "http://u:REDACTED@127.0.0.1:99999/": invalid port`},
		{"fragment token", "see https://127.0.0.1/cb#id_token=S3CRET&state=s",
			"see https://127.0.0.1/cb#id_token=REDACTED&state=s"},
		{"basic credential", "echo: Authorization: Basic " + basic, "echo: Authorization: Basic <redacted, 20 chars>"},
		{"basic prose kept", "Basic authentication failed", "Basic authentication failed"},
		{"form echo", "bad request grant_type=password&password=S3CRET&client_id=app",
			"bad request grant_type=password&password=REDACTED&client_id=app"},
		{"json echo", `{"error":"x","client_secret" : "S3CRET"}`, `{"error":"x","client_secret":"REDACTED"}`},
		{"plain text kept", "status 401: token expired", "status 401: token expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in)
			if got != tt.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Text(got); again != got {
				t.Errorf("Text is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// TestHeaderPatterns: a JWT is redacted in a header of any name, and the
// identity-aware proxies' assertion headers are secret by name.
func TestHeaderPatterns(t *testing.T) {
	jwt := "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"
	tests := []struct{ name, value, want string }{
		{"X-Goog-IAP-JWT-Assertion", jwt, "<redacted, 54 chars>"},
		{"X-Amzn-Oidc-Data", jwt, "<redacted, 54 chars>"},
		{"X-Forwarded-User-Claims", "v1 " + jwt, "v1 <redacted, 54 chars>"},
		{"Server", "nginx echo Basic " + base64.StdEncoding.EncodeToString([]byte("a:b")), "nginx echo Basic <redacted, 4 chars>"},
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

// TestURLUnparseable: a URL net/url refuses is still redacted.
func TestURLUnparseable(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://127.0.0.1/%zz?token=S3CRET", "http://127.0.0.1/%zz?token=REDACTED"},
		{"http://u:S3CRET@127.0.0.1:99999/", "http://u:REDACTED@127.0.0.1:99999/"},
		{"http://u:S3CRET@/", "http://u:REDACTED@/"},
	} {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCommand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"curl -su admin:S3CRET https://127.0.0.1/token", "curl <redacted, 40 chars>"},
		{"oc whoami -t", "oc <redacted, 9 chars>"},
		{"/usr/local/bin/get-token", "/usr/local/bin/get-token"},
		{"TOKEN=S3CRET get-token", "<redacted, 22 chars>"},
		{"$(cat /run/pw) x", "<redacted, 16 chars>"},
		{"  ", ""},
	}
	for _, tt := range tests {
		got := Command(tt.in)
		if got != tt.want {
			t.Errorf("Command(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if Command(got) != got {
			t.Errorf("Command is not idempotent on %q", got)
		}
	}
	args := Args([]string{"authbench", "run", "--token-command", "curl -u admin:S3CRET h", "--token-command=oc whoami -t"})
	if strings.Contains(strings.Join(args, " "), "S3CRET") || args[3] != "curl <redacted, 17 chars>" || args[4] != "--token-command=oc <redacted, 9 chars>" {
		t.Errorf("Args kept a token command's arguments: %q", args)
	}
}
