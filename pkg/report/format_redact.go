package report

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// secretWords mark header and query parameter names whose values are
// treated as secrets on top of auth's list. Reports are pasted into tickets
// and chats, so redacting an innocent "Idempotency-Key" costs far less than
// printing an "X-Api-Key".
var secretWords = []string{"auth", "token", "key", "secret", "cookie", "session", "passw", "credential", "sig"}

// minSecretLen keeps the output scrubber from rewriting short, common strings.
const minSecretLen = 6

// secretName reports whether a header or parameter name suggests a secret.
func secretName(name string) bool {
	if auth.IsSensitiveHeader(name) {
		return true
	}
	n := strings.ToLower(name)
	return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(n, w) })
}

// redactHeader returns a header's printable value.
func redactHeader(h plan.Header) string {
	if secretName(h.Name) {
		return auth.Redact(h.Value)
	}
	return h.Value
}

// redactURL hides a URL's password and secret-looking query values while
// keeping the parameters' order, so the URL stays recognisable.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "redacted")
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if k, _, ok := strings.Cut(p, "="); ok && secretName(k) {
				parts[i] = k + "=redacted"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// secretsOf lists every secret an in-memory run may still hold: literal
// tokens, sensitive header values and URL credentials. A run handed over
// straight from the runner has not been through JSON, so its headers are
// not redacted yet.
func secretsOf(run *results.Run) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); len(s) >= minSecretLen {
			out = append(out, s)
		}
	}
	addHeaders := func(hs []plan.Header) {
		for _, h := range hs {
			if secretName(h.Name) {
				add(h.Value)
				if _, rest, ok := strings.Cut(h.Value, " "); ok {
					add(rest)
				}
			}
		}
	}
	addURL := func(s string) {
		u, err := url.Parse(s)
		if err != nil {
			return
		}
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for k, vs := range u.Query() {
			if secretName(k) {
				for _, v := range vs {
					add(v)
				}
			}
		}
	}
	for _, t := range run.Plan.Targets {
		if t.Token != nil {
			add(t.Token.Literal)
		}
		addHeaders(t.Headers)
		addURL(t.URL)
		for _, r := range t.Rungs {
			if r.Token != nil {
				add(r.Token.Literal)
			}
			addHeaders(r.Headers)
			addURL(r.URL)
		}
	}
	// Longest first, so a token is not half-replaced by a shorter secret
	// that happens to be its prefix.
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(out)
}

// jwtPattern matches anything shaped like a JWT, the usual bearer token.
var jwtPattern = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)

// scrub replaces every secret in s, and anything shaped like a JWT. It is
// the last line of defence: the renderers already print only redacted
// values, but an error sample or a command line could still echo a token.
func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "<redacted>")
	}
	return jwtPattern.ReplaceAllString(s, "<redacted JWT>")
}

// redactArgs hides secret flag values (--token X, --token=X, and header
// values after -H) in a command line, in case one was recorded before
// redaction.
func redactArgs(args []string) []string {
	out := slices.Clone(args)
	for i := 1; i < len(out); i++ {
		prev := strings.TrimLeft(out[i-1], "-")
		if strings.HasPrefix(out[i-1], "-") && (prev == "H" || prev == "header") {
			if name, value, ok := strings.Cut(out[i], ":"); ok {
				out[i] = name + ": " + redactHeader(plan.Header{Name: name, Value: strings.TrimSpace(value)})
			}
			continue
		}
		if strings.HasPrefix(out[i-1], "-") && !strings.Contains(prev, "=") && secretName(prev) {
			out[i] = "<redacted>"
		}
	}
	for i, a := range out {
		if name, _, ok := strings.Cut(strings.TrimLeft(a, "-"), "="); ok && strings.HasPrefix(a, "-") && secretName(name) {
			out[i] = a[:strings.Index(a, "=")+1] + "<redacted>"
		}
	}
	return out
}
