package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/redact"
)

// PasswordEnv is the environment variable holding --registry-user's
// password.
const PasswordEnv = "AUTHBENCH_REGISTRY_PASSWORD"

// Credentials log in to a registry: a user and a password, or a token
// (given as the password of basic auth, which registries of the token
// flow, OpenShift's among them, exchange for a registry token). They
// format as redacted, so a %v never shows the secret.
type Credentials struct {
	User     string
	password string
}

// CredentialSource says where explicit credentials come from; all empty
// means the user's docker or podman login.
type CredentialSource struct {
	User         string // --registry-user
	PasswordFile string // --registry-password-file; else $AUTHBENCH_REGISTRY_PASSWORD
	TokenCommand string // --registry-token-command, e.g. "oc whoami -t"
}

// LoadCredentials reads the credentials src names, or returns nil for
// the user's own login. A token command's user defaults to "authbench"
// (OpenShift's registry ignores it).
func LoadCredentials(ctx context.Context, src CredentialSource, getenv func(string) string) (*Credentials, error) {
	switch {
	case src.TokenCommand != "":
		if src.PasswordFile != "" {
			return nil, errors.New("--registry-token-command and --registry-password-file: give one")
		}
		tok, err := commandToken(ctx, src.TokenCommand)
		if err != nil {
			return nil, err
		}
		return &Credentials{User: cmpOr(src.User, "authbench"), password: tok}, nil
	case src.User == "":
		if src.PasswordFile != "" {
			return nil, errors.New("--registry-password-file needs --registry-user")
		}
		return nil, nil
	case src.PasswordFile != "":
		p, err := readPasswordFile(src.PasswordFile)
		if err != nil {
			return nil, err
		}
		return &Credentials{User: src.User, password: p}, nil
	}
	p := getenv(PasswordEnv)
	if p == "" {
		return nil, fmt.Errorf("--registry-user %s needs a password: set $%s or give --registry-password-file", src.User, PasswordEnv)
	}
	return &Credentials{User: src.User, password: p}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// commandToken runs the command as a token source does: its stdout is the
// token, and a failure's message never carries it.
func commandToken(ctx context.Context, command string) (string, error) {
	ts, err := auth.New(ctx, &auth.Spec{Command: command})
	if err != nil {
		return "", fmt.Errorf("getting the registry token: %w", err)
	}
	tok, err := ts.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("getting the registry token: %w", err)
	}
	return tok, nil
}

// readPasswordFile reads the file's first line, bounded.
func readPasswordFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading --registry-password-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", fmt.Errorf("reading --registry-password-file %s: %w", path, err)
	}
	p, _, _ := strings.Cut(string(b), "\n")
	p = strings.TrimRight(p, "\r")
	if p == "" {
		return "", fmt.Errorf("--registry-password-file %s: the first line is empty", path)
	}
	return p, nil
}

func (c *Credentials) authenticator() authn.Authenticator {
	return authn.FromConfig(authn.AuthConfig{Username: c.User, Password: c.password})
}

// secrets are what a scrubber must remove from messages.
func (c *Credentials) secrets() []string { return []string{c.password} }

// Secrets lists the values no output may show, for a scrubber.
func (c *Credentials) Secrets() []string {
	if c == nil {
		return nil
	}
	return c.secrets()
}

// String shows the user and a redacted password.
func (c Credentials) String() string { return c.User + ":" + redact.Placeholder }

// GoString is String, so %#v hides the password too.
func (c Credentials) GoString() string { return c.String() }
