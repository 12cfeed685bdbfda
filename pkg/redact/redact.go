// Package redact is the one place that decides what a secret looks like
// and how it is written: every file writer (run.json, summaries, reports,
// history) and every message goes through it, so a secret hidden in one
// place cannot leak through another.
//
// Two placeholders, one of each kind: a secret value (a token, a header
// value, a flag's value) becomes "<redacted, N chars>", keeping a leading
// auth scheme ("Bearer <redacted, 43 chars>") because the scheme tells the
// reader what kind of auth was used; a secret inside a URL (a password, a
// token parameter) becomes Placeholder, whose letters survive URL escaping.
package redact

import (
	"fmt"
	"slices"
	"strings"
)

// Placeholder stands for a secret inside a URL, where the spaces and
// brackets of Value's placeholder would be escaped.
const Placeholder = "REDACTED"

// sensitiveHeaders are headers whose values are always secrets.
var sensitiveHeaders = map[string]bool{
	"authorization":            true,
	"proxy-authorization":      true,
	"cookie":                   true,
	"set-cookie":               true,
	"x-auth-token":             true,
	"x-forwarded-access-token": true,
	"x-amzn-oidc-data":         true, // an ALB's signed JWT of the user's claims
}

// secretWords mark header and parameter names whose values are treated as
// secrets on top of the fixed lists. Reports are pasted into tickets and
// chats, so redacting an innocent "Idempotency-Key" costs far less than
// printing an "X-Api-Key".
var secretWords = []string{"auth", "token", "key", "secret", "cookie", "session", "passw", "credential", "sig", "jwt", "assertion"}

// IsSecretHeader reports whether a header's value must never be written.
func IsSecretHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return sensitiveHeaders[n] || slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(n, w) })
}

// Header returns a secret header's value redacted (as by Value), and an
// ordinary header's value with whatever looks like a credential in it (a
// JWT, a bearer or Basic credential, a URL's password or token parameter)
// redacted as by Text: a proxy may put a JWT in a header of any name.
func Header(name, value string) string {
	if !IsSecretHeader(name) {
		return patterns(value)
	}
	return Value(value)
}

// Value hides a secret value, keeping a leading auth scheme if present.
func Value(value string) string {
	if scheme, rest, ok := strings.Cut(value, " "); ok && isScheme(scheme) {
		return fmt.Sprintf("%s <redacted, %d chars>", scheme, len(rest))
	}
	return fmt.Sprintf("<redacted, %d chars>", len(value))
}

// IsRedacted reports whether s is already a placeholder, so that
// redacting twice does not nest placeholders.
func IsRedacted(s string) bool {
	return s == Placeholder || strings.HasPrefix(s, "<redacted") ||
		strings.Contains(s, " <redacted, ")
}

func isScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "digest", "negotiate", "token":
		return true
	}
	return false
}
