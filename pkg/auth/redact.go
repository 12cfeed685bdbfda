package auth

import (
	"fmt"
	"strings"
)

// sensitive lists headers whose values are secrets.
var sensitive = map[string]bool{
	"authorization":            true,
	"proxy-authorization":      true,
	"cookie":                   true,
	"set-cookie":               true,
	"x-auth-token":             true,
	"x-forwarded-access-token": true,
}

// IsSensitiveHeader reports whether a header's value must never be written.
func IsSensitiveHeader(name string) bool { return sensitive[strings.ToLower(name)] }

// RedactHeader returns value unchanged for ordinary headers, and a
// placeholder such as "Bearer <redacted, 43 chars>" for sensitive ones. The
// scheme word is kept because it tells the reader what kind of auth was used.
func RedactHeader(name, value string) string {
	if !IsSensitiveHeader(name) {
		return value
	}
	return Redact(value)
}

// Redact hides a secret value, keeping a leading auth scheme if present.
func Redact(value string) string {
	if scheme, rest, ok := strings.Cut(value, " "); ok && isScheme(scheme) {
		return fmt.Sprintf("%s <redacted, %d chars>", scheme, len(rest))
	}
	return fmt.Sprintf("<redacted, %d chars>", len(value))
}

func isScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "digest", "negotiate", "token":
		return true
	}
	return false
}
