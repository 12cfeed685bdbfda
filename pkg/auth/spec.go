package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/redact"
)

// Grant names for OIDC.Grant.
const (
	GrantPassword          = "password"
	GrantClientCredentials = "client_credentials"
)

// DefaultRefreshBefore is OIDC.RefreshBefore's default.
const DefaultRefreshBefore = 30 * time.Second

// DefaultScope is OIDC.Scopes' default, alone.
const DefaultScope = "openid"

// Validate reports the first impossible value in the spec. It names fields
// and environment variables, never values that could be secret.
func (s *Spec) Validate() error {
	if s == nil {
		return errors.New("no token source")
	}
	kinds := s.kinds()
	switch {
	case len(kinds) == 0:
		return errors.New("no token source: give one of a literal token, env, file, command, oidc or pool")
	case len(kinds) > 1:
		return fmt.Errorf("more than one token source (%s): give only one", strings.Join(kinds, ", "))
	case s.Static && strings.TrimSpace(s.Literal) == "":
		return errors.New("token is empty")
	case s.Refresh != "" && s.Command == "":
		return errors.New("refresh applies only to a command token source")
	}
	if s.Refresh != "" {
		if d, err := time.ParseDuration(s.Refresh); err != nil || d <= 0 {
			return fmt.Errorf("command refresh %q must be a positive duration such as \"10m\"", s.Refresh)
		}
	}
	if s.OIDC != nil {
		return s.OIDC.Validate()
	}
	if s.Pool != nil {
		return s.Pool.Validate()
	}
	return nil
}

// kinds lists the kinds of source set, for the one-kind check.
func (s *Spec) kinds() []string {
	var k []string
	add := func(set bool, name string) {
		if set {
			k = append(k, name)
		}
	}
	add(s.Static, "static")
	add(s.Env != "", "env")
	add(s.File != "", "file")
	add(s.Command != "", "command")
	add(s.OIDC != nil, "oidc")
	add(s.Pool != nil, "pool")
	return k
}

// Validate reports the first impossible value in the OIDC configuration.
func (o *OIDC) Validate() error {
	if o.Issuer == "" && o.TokenURL == "" {
		return errors.New("oidc: issuer (or token_url) is required")
	}
	for _, u := range []struct{ name, v string }{{"issuer", o.Issuer}, {"token_url", o.TokenURL}} {
		if u.v != "" {
			if err := checkURL(u.v); err != nil {
				return fmt.Errorf("oidc: %s: %w", u.name, err)
			}
		}
	}
	if o.ClientID == "" {
		return errors.New("oidc: client_id is required")
	}
	if o.ClientSecretEnv != "" && o.ClientSecretFile != "" {
		return errors.New("oidc: give client_secret_env or client_secret_file, not both")
	}
	if o.PasswordEnv != "" && o.PasswordFile != "" {
		return errors.New("oidc: give password_env or password_file, not both")
	}
	switch o.grant() {
	case GrantPassword:
		if o.Username == "" {
			return errors.New("oidc: the password grant needs username")
		}
		if o.PasswordEnv == "" && o.PasswordFile == "" {
			return errors.New("oidc: the password grant needs password_env or password_file")
		}
	case GrantClientCredentials:
		if o.Username != "" || o.PasswordEnv != "" || o.PasswordFile != "" {
			return errors.New("oidc: username and password are only used by the password grant")
		}
		if o.ClientSecretEnv == "" && o.ClientSecretFile == "" {
			return errors.New("oidc: the client_credentials grant needs client_secret_env or client_secret_file")
		}
	default:
		return fmt.Errorf("oidc: grant %q must be %q or %q", o.Grant, GrantPassword, GrantClientCredentials)
	}
	if _, err := o.refreshBefore(); err != nil {
		return err
	}
	return nil
}

// grant applies Grant's default.
func (o *OIDC) grant() string {
	switch {
	case o.Grant != "":
		return o.Grant
	case o.Username != "":
		return GrantPassword
	}
	return GrantClientCredentials
}

// refreshBefore parses RefreshBefore, applying its default.
func (o *OIDC) refreshBefore() (time.Duration, error) {
	if o.RefreshBefore == "" {
		return DefaultRefreshBefore, nil
	}
	d, err := time.ParseDuration(o.RefreshBefore)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("oidc: refresh_before %q must be a duration such as \"30s\"", o.RefreshBefore)
	}
	return d, nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("bad url: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("bad url %q: scheme must be http or https", u.Redacted())
	case u.Host == "":
		return fmt.Errorf("bad url %q: no host", u.Redacted())
	}
	return nil
}

// Format prints where the token comes from, never a literal token, so a Spec
// can be logged with any verb.
func (s Spec) Format(f fmt.State, _ rune) {
	fmt.Fprint(f, "auth.Spec{"+s.summary()+"}")
}

func (s *Spec) summary() string {
	switch s.Kind() {
	case "static":
		return "static " + redact.Value(s.Literal)
	case "env":
		return "env " + s.Env
	case "file":
		return "file " + s.File
	case "command":
		d := "command"
		if s.Refresh != "" {
			d += " every " + s.Refresh
		}
		return d
	case "oidc":
		o := s.OIDC
		d := fmt.Sprintf("oidc %s grant, client %s", o.grant(), o.ClientID)
		if o.Username != "" {
			d += ", user " + o.Username
		}
		return d
	case "pool":
		d := fmt.Sprintf("pool %s", s.Pool.order())
		if s.Pool.File != "" {
			d += ", file " + s.Pool.File
		}
		if n := len(s.Pool.Sources); n > 0 {
			d += fmt.Sprintf(", %d sources", n)
		}
		return d
	}
	return "none"
}

// MarshalJSON records the spec with a command's arguments redacted
// (redact.Command): `curl -u admin:pw ...` would put a password in
// run.json. Nothing reads a command back from a record.
func (s Spec) MarshalJSON() ([]byte, error) {
	type raw Spec
	r := raw(s)
	r.Command = redact.Command(s.Command)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<redacted, N chars>" reads as written
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
