package redact

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzURL feeds untrusted strings (URLs from scenario files, command
// lines, error text) to the URL and text redactors: they must not panic,
// must be idempotent, and must never let a URL's password through, judged
// by the standard library's parser.
func FuzzURL(f *testing.F) {
	for _, s := range []string{
		"https://alice:pw@127.0.0.1:8443/echo?x=1&access_token=t",
		"https://127.0.0.1/cb#access_token=t&state=s",
		"http://u:p@h/%zz", "://", "http://[::1]:80/?token", "not a url", "",
		"https://h/p?a=1&access_token=abc123456&b=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := URL(s)
		if again := URL(got); again != got {
			t.Fatalf("URL not idempotent: %q -> %q -> %q", s, got, again)
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || !strings.Contains(s, "://") {
			return
		}
		pw, ok := u.User.Password()
		if !ok || pw == "" || pw == Placeholder {
			return
		}
		r, err := url.Parse(got)
		if err != nil {
			t.Fatalf("URL(%q) = %q does not parse: %v", s, got, err)
		}
		if p, _ := r.User.Password(); p != Placeholder {
			t.Fatalf("URL(%q) = %q keeps password %q", s, got, p)
		}
	})
}

// FuzzArgs: the command-line redactor must not panic, must be idempotent
// and must never keep the value of --token.
func FuzzArgs(f *testing.F) {
	f.Add("--token", "abc123", "-H", "Authorization: Bearer x")
	f.Add("-a", "u:pw", "--header=Cookie: a=b", "https://u:p@h/")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		in := []string{"authbench", a, b, c, d}
		once := Args(in)
		twice := Args(once)
		for i := range once {
			if once[i] != twice[i] {
				t.Fatalf("Args not idempotent at %d: %q -> %q", i, once[i], twice[i])
			}
		}
		for i := 1; i+1 < len(in); i++ {
			if (in[i] == "--token" || in[i] == "-token") && in[i+1] != "" && !IsRedacted(in[i+1]) && once[i+1] == in[i+1] {
				t.Fatalf("token value kept: %q", once)
			}
		}
	})
}
