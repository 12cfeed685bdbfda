package redact

import (
	"net/url"
	"slices"
	"strings"
)

// secretParams are URL query (or fragment) parameters whose values are
// secrets even though their names carry none of secretWords.
var secretParams = map[string]bool{"code": true, "password": true, "client_secret": true}

// isSecretParam reports whether a query parameter's value is a secret.
func isSecretParam(name string) bool {
	n := strings.ToLower(name)
	return secretParams[n] || slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(n, w) })
}

// URL hides a URL's password (user:REDACTED@host) and the values of secret
// query and fragment parameters (an OAuth callback carries its tokens in
// the fragment), keeping everything else, and the parameters' order, as
// written so that the URL stays recognisable. A string without "://" is
// returned unchanged; one that net/url refuses, or that has no host, is
// redacted as text (URLs), so that its error cannot echo a token.
func URL(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return urlText(s)
	}
	changed := false
	if p, ok := u.User.Password(); ok && p != Placeholder {
		u.User = url.UserPassword(u.User.Username(), Placeholder)
		changed = true
	}
	if q, ok := params(u.RawQuery); ok {
		u.RawQuery, changed = q, true
	}
	if f, ok := params(u.Fragment); ok {
		u.Fragment, u.RawFragment, changed = f, "", true
	}
	if !changed {
		return s
	}
	return u.String()
}

// params redacts secret values in "a=1&b=2", keeping the order.
func params(raw string) (string, bool) {
	if raw == "" {
		return raw, false
	}
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			key = k // a bad escape does not make the value less secret
		}
		if ok && v != Placeholder && isSecretParam(key) {
			parts[i] = k + "=" + Placeholder
			changed = true
		}
	}
	return strings.Join(parts, "&"), changed
}
