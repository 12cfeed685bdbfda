package redact

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
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
	// userinfoPattern matches the password of scheme://user:password@,
	// which url.Parse would refuse to find inside free text.
	userinfoPattern = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)([^/\s@]+)@`)
)

func patterns(text string) string { return replacePatterns(text, Value) }

// replacePatterns replaces what looks like a JWT or a bearer credential
// with hide's placeholder, and a URL password with Placeholder.
func replacePatterns(text string, hide func(string) string) string {
	text = JWTPattern.ReplaceAllStringFunc(text, hide)
	text = userinfoPattern.ReplaceAllStringFunc(text, func(m string) string {
		sub := userinfoPattern.FindStringSubmatch(m)
		return sub[1] + Placeholder + "@"
	})
	return bearerPattern.ReplaceAllStringFunc(text, func(m string) string {
		sub := bearerPattern.FindStringSubmatch(m)
		if strings.HasPrefix(sub[2], "<redacted") || sub[2] == Placeholder {
			return m
		}
		return hide(sub[1] + " " + sub[2])
	})
}
