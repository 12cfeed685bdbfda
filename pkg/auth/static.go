package auth

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// staticSource serves one token for the whole run: a literal or an
// environment variable read once at start.
type staticSource struct {
	kind string
	name string // the environment variable, for env
	tok  string
}

func newStatic(literal string) (*staticSource, error) {
	tok := strings.TrimSpace(literal)
	if err := checkToken(tok); err != nil {
		return nil, fmt.Errorf("static token: %w", err)
	}
	return &staticSource{kind: "static", tok: tok}, nil
}

func newEnv(name string) (*staticSource, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return nil, fmt.Errorf("reading token from environment: variable %s is not set", name)
	}
	tok := strings.TrimSpace(v)
	if tok == "" {
		return nil, fmt.Errorf("reading token from environment: variable %s is empty", name)
	}
	if err := checkToken(tok); err != nil {
		return nil, fmt.Errorf("reading token from environment variable %s: %w", name, err)
	}
	return &staticSource{kind: "env", name: name, tok: tok}, nil
}

// Token returns the token read at start.
func (s *staticSource) Token(context.Context) (string, error) { return s.tok, nil }

// Kind is "static" or "env".
func (s *staticSource) Kind() string { return s.kind }

// Format never prints the token.
func (s *staticSource) Format(f fmt.State, _ rune) { describe(f, s.kind, s.name) }
