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

// FuzzText feeds untrusted text (a client's error, a server's echo) to
// Text: it must not panic, must be idempotent, and no URL left in its
// output may hold a password or a secret parameter's value, judged by the
// standard library's parser.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		`Get "http://127.0.0.1:1/x?a=1&access_token=S3CRET": connection refused`,
		`parse "http://u:pw@127.0.0.1:99999/?token=t": invalid port`,
		"https://127.0.0.1/cb#id_token=t&state=s", "Basic YWRtaW46cHc=", `{"password":"x"}`,
		"password=x&client_id=y", "Bearer abcdefghij", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if again := Text(got); again != got {
			t.Fatalf("Text not idempotent: %q -> %q -> %q", s, got, again)
		}
		for _, m := range urlPattern.FindAllString(got, -1) {
			u, err := url.Parse(m)
			if err != nil {
				continue
			}
			if p, ok := u.User.Password(); ok && p != "" && p != Placeholder {
				t.Fatalf("Text(%q) = %q keeps password %q", s, got, p)
			}
			for _, raw := range []string{u.RawQuery, u.Fragment} {
				q, _ := url.ParseQuery(raw)
				for k, vs := range q {
					for _, v := range vs {
						if isSecretParam(k) && v != "" && v != Placeholder && !strings.HasPrefix(v, "<redacted") {
							t.Fatalf("Text(%q) = %q keeps %s=%q", s, got, k, v)
						}
					}
				}
			}
		}
	})
}

// FuzzCommand: a recorded command keeps at most its program name; the
// rest is one placeholder, and redacting twice changes nothing.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{"curl -u admin:pw https://h/", "oc whoami -t", "X=1 cmd", "prog", "a\tb", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Command(s)
		if Command(got) != got {
			t.Fatalf("Command not idempotent: %q -> %q -> %q", s, got, Command(got))
		}
		prog, rest, ok := strings.Cut(got, " ")
		if valuePlaceholder.MatchString(got) || !ok {
			return
		}
		if !programName.MatchString(prog) || !valuePlaceholder.MatchString(rest) {
			t.Fatalf("Command(%q) = %q keeps more than the program", s, got)
		}
	})
}
