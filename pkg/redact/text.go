package redact

import (
	"bytes"
	"encoding/base64"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Scrubber removes known secrets from arbitrary text, such as an error
// message from an identity provider or a token command's stderr. The zero
// value is ready to use and it is safe for concurrent use.
type Scrubber struct {
	mu      sync.RWMutex
	secrets []string // longest first, so a secret containing another goes whole
}

// Add registers secrets to remove. Empty strings are ignored.
func (s *Scrubber) Add(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range secrets {
		if v != "" && !slices.Contains(s.secrets, v) {
			s.secrets = append(s.secrets, v)
		}
	}
	slices.SortStableFunc(s.secrets, func(a, b string) int { return len(b) - len(a) })
}

// Scrub returns text with every registered secret, and anything shaped
// like a JWT, a bearer credential or a URL password, replaced by a
// placeholder.
func (s *Scrubber) Scrub(text string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range s.secrets {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, Value(v))
		}
	}
	return patterns(text)
}

// Error returns err with its message scrubbed. The result still matches
// errors.Is targets of err (context.Canceled, os.ErrNotExist, ...) but does
// not unwrap to it, so the unscrubbed message cannot be reached.
func (s *Scrubber) Error(err error) error {
	if err == nil {
		return nil
	}
	return &scrubbedError{msg: s.Scrub(err.Error()), err: err}
}

// Text replaces each of secrets in s, and anything shaped like a JWT, a
// bearer credential or a URL password, with a placeholder.
func Text(s string, secrets ...string) string {
	var sc Scrubber
	sc.Add(secrets...)
	return sc.Scrub(s)
}

// Error is Scrubber.Error for a one-off list of secrets.
func Error(err error, secrets ...string) error {
	var sc Scrubber
	sc.Add(secrets...)
	return sc.Error(err)
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string        { return e.msg }
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }

var (
	// JWTPattern matches anything shaped like a JWT, the usual bearer token.
	JWTPattern    = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)
	bearerPattern = regexp.MustCompile(`(?i)\b(bearer)\s+([A-Za-z0-9._~+/=-]{8,})`)
	// basicPattern matches a Basic credential; only base64 that decodes
	// to "user:password" is taken, so that prose ("Basic authentication")
	// is left alone.
	basicPattern = regexp.MustCompile(`(?i)\b(basic)\s+([A-Za-z0-9+/]{4,}={0,2})`)
	// userinfoPattern matches the password of scheme://user:password@,
	// which url.Parse would refuse to find inside free text.
	userinfoPattern = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)([^/\s@]+)@`)
	// paramPattern matches a token parameter outside a URL, as an
	// identity provider echoes a form ("password=...&client_id=...").
	paramPattern = regexp.MustCompile(`(?i)\b(access_token|id_token|refresh_token|client_secret|client_assertion|password|passwd|api_key|apikey|token)=([^&\s"'<>,;#)\]}|` + "`" + `]+)`)
	// jsonPattern matches a token field of an echoed JSON body.
	jsonPattern = regexp.MustCompile(`(?i)"(access_token|id_token|refresh_token|client_secret|client_assertion|password|token)"\s*:\s*"((?:[^"\\]|\\.)+)"`)
)

func patterns(text string) string { return replacePatterns(text, Value) }

// replacePatterns replaces what looks like a JWT, a bearer or Basic
// credential with hide's placeholder, and a URL password, a token
// parameter (in a URL, a form or a JSON body) with Placeholder.
func replacePatterns(text string, hide func(string) string) string {
	text = URLs(text)
	text = JWTPattern.ReplaceAllStringFunc(text, hide)
	text = userinfoPattern.ReplaceAllStringFunc(text, func(m string) string {
		sub := userinfoPattern.FindStringSubmatch(m)
		return sub[1] + Placeholder + "@"
	})
	text = bearerPattern.ReplaceAllStringFunc(text, func(m string) string {
		sub := bearerPattern.FindStringSubmatch(m)
		if strings.HasPrefix(sub[2], "<redacted") || sub[2] == Placeholder {
			return m
		}
		return hide(sub[1] + " " + sub[2])
	})
	text = basicPattern.ReplaceAllStringFunc(text, func(m string) string {
		sub := basicPattern.FindStringSubmatch(m)
		if sub[2] == Placeholder || !isBasicCredential(sub[2]) {
			return m
		}
		return hide(sub[1] + " " + sub[2])
	})
	text = paramPattern.ReplaceAllStringFunc(text, func(m string) string {
		name, _, _ := strings.Cut(m, "=")
		return name + "=" + Placeholder
	})
	return jsonPattern.ReplaceAllStringFunc(text, func(m string) string {
		sub := jsonPattern.FindStringSubmatch(m)
		if sub[2] == Placeholder {
			return m
		}
		return `"` + sub[1] + `":"` + Placeholder + `"`
	})
}

// isBasicCredential reports whether b64 is base64 of "user:password".
func isBasicCredential(b64 string) bool {
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(b64)
	}
	return err == nil && bytes.IndexByte(b, ':') > 0 && utf8.Valid(b)
}
