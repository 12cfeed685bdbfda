// Package auth gets bearer tokens the way users do (a literal, an environment
// variable, a file, a command such as `oc whoami -t`, an OIDC grant with
// refresh) and redacts secrets wherever they could be written.
//
// A token never leaves this package except as the value of an Authorization
// header on the wire. Spec, the serialisable description of where a token
// comes from, never holds the token itself.
package auth

import "context"

// TokenSource supplies the current bearer token. Implementations are safe for
// concurrent use and cheap on the hot path: Token is called once per request,
// so sources cache and refresh in the background or lazily under a lock.
type TokenSource interface {
	// Token returns the token to send now, without the "Bearer " prefix.
	Token(ctx context.Context) (string, error)
	// Kind names the source for reports: static, env, file, command, oidc,
	// pool.
	Kind() string
}

// Spec says where a token comes from. Exactly one field is set. It is
// recorded in run.json; it must never hold a secret.
type Spec struct {
	// Static marks a token given literally (--token). The value is held
	// outside the Spec, in Literal, which is never serialised.
	Static bool `json:"static,omitempty" yaml:"-"`
	// Literal is the --token value; never serialised.
	Literal string `json:"-" yaml:"-"`
	// Env names an environment variable holding the token.
	Env string `json:"env,omitempty" yaml:"env,omitempty"`
	// File is a file holding the token; surrounding whitespace is trimmed.
	// It is re-read when it changes, so rotated tokens are picked up.
	File string `json:"file,omitempty" yaml:"file,omitempty"`
	// Command is run through `sh -c`; its trimmed stdout is the token.
	Command string `json:"command,omitempty" yaml:"command,omitempty"`
	// Refresh re-runs Command on this interval (a duration such as "10m"),
	// for tokens that expire during long runs. Default "": run once.
	Refresh string `json:"refresh,omitempty" yaml:"refresh,omitempty"`
	// OIDC gets a token from an OpenID Connect provider.
	OIDC *OIDC `json:"oidc,omitempty" yaml:"oidc,omitempty"`
	// Pool hands out many tokens, one per request (round-robin or random).
	Pool *Pool `json:"pool,omitempty" yaml:"pool,omitempty"`
}

// OIDC configures an OAuth2 grant against an OIDC provider's token endpoint.
type OIDC struct {
	// Issuer is the provider's issuer URL; the token endpoint is discovered
	// from Issuer/.well-known/openid-configuration unless TokenURL is set.
	Issuer string `json:"issuer" yaml:"issuer"`
	// TokenURL overrides discovery.
	TokenURL string `json:"token_url,omitempty" yaml:"token_url,omitempty"`
	// Grant is "password" or "client_credentials". Default "password" when
	// Username is set, else "client_credentials".
	Grant string `json:"grant,omitempty" yaml:"grant,omitempty"`
	// ClientID is required.
	ClientID string `json:"client_id" yaml:"client_id"`
	// ClientSecretEnv or ClientSecretFile hold the client secret (optional
	// for public clients).
	ClientSecretEnv  string `json:"client_secret_env,omitempty" yaml:"client_secret_env,omitempty"`
	ClientSecretFile string `json:"client_secret_file,omitempty" yaml:"client_secret_file,omitempty"`
	// Username, with PasswordEnv or PasswordFile, is for the password grant.
	Username     string `json:"username,omitempty" yaml:"username,omitempty"`
	PasswordEnv  string `json:"password_env,omitempty" yaml:"password_env,omitempty"`
	PasswordFile string `json:"password_file,omitempty" yaml:"password_file,omitempty"`
	// Scopes requested. Default ["openid"].
	Scopes []string `json:"scopes,omitempty" yaml:"scopes,omitempty"`
	// CACert is a PEM file to trust for the provider's TLS.
	CACert string `json:"cacert,omitempty" yaml:"cacert,omitempty"`
	// Insecure skips TLS verification of the provider. Default false.
	Insecure bool `json:"insecure,omitempty" yaml:"insecure,omitempty"`
	// RefreshBefore is how long before expiry a token is renewed, capped at
	// half the token's lifetime. Default "30s".
	RefreshBefore string `json:"refresh_before,omitempty" yaml:"refresh_before,omitempty"`
	// UseIDToken sends the ID token instead of the access token, as the
	// Kubernetes API server's OIDC authenticator expects. Default false.
	UseIDToken bool `json:"use_id_token,omitempty" yaml:"use_id_token,omitempty"`
}

// Kind names the kind of source the spec describes.
func (s *Spec) Kind() string {
	switch {
	case s == nil:
		return "none"
	case s.Static:
		return "static"
	case s.Env != "":
		return "env"
	case s.File != "":
		return "file"
	case s.Command != "":
		return "command"
	case s.OIDC != nil:
		return "oidc"
	case s.Pool != nil:
		return "pool"
	}
	return "none"
}
