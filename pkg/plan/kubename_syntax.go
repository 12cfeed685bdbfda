package plan

import "fmt"

// The syntax checks below follow Kubernetes's own validation
// (k8s.io/apimachinery/pkg/util/validation); a fuzz test holds them to it.
// Each returns why s is invalid, or "".

// dns1123Label checks an RFC 1123 label, such as a namespace name.
func dns1123Label(s string) string {
	if len(s) > 63 {
		return fmt.Sprintf("must be at most 63 characters, not %d", len(s))
	}
	if !labelRun(s, isLowerAlnum, func(c byte) bool { return isLowerAlnum(c) || c == '-' }) {
		return `must be lower case letters, digits and '-', starting and ending with a letter or digit (such as "load-test")`
	}
	return ""
}

// dns1123Subdomain checks an RFC 1123 subdomain, such as an object name:
// labels joined by '.'.
func dns1123Subdomain(s string) string {
	if len(s) > 253 {
		return fmt.Sprintf("must be at most 253 characters, not %d", len(s))
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			continue
		}
		if !labelRun(s[start:i], isLowerAlnum, func(c byte) bool { return isLowerAlnum(c) || c == '-' }) {
			return `must be lower case letters, digits, '-' and '.', each part starting and ending with a letter or digit (such as "authbench-1a2b")`
		}
		start = i + 1
	}
	return ""
}

// labelName checks a label value or the name part of a label key; ""
// passes.
func labelName(s string) string {
	if len(s) > 63 {
		return fmt.Sprintf("must be at most 63 characters, not %d", len(s))
	}
	if s != "" && !labelRun(s, isAlnum, func(c byte) bool { return isAlnum(c) || c == '-' || c == '_' || c == '.' }) {
		return "must be letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
	}
	return ""
}

// labelRun reports whether s is non-empty, its ends pass end and every
// byte passes inner.
func labelRun(s string, end, inner func(byte) bool) bool {
	if s == "" || !end(s[0]) || !end(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !inner(s[i]) {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || 'A' <= c && c <= 'Z' }
