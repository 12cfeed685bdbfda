package scenario

import (
	"strings"

	"github.com/authbench/authbench/pkg/auth"
)

// oidc checks a grant's settings the way auth.OIDC.Validate does, but
// field by field with lines, and applies the grant and scope defaults so
// that run.json shows what was used.
func (b *builder) oidc(o *oidcSpec, path string) *auth.OIDC {
	out := &auth.OIDC{
		Issuer: o.Issuer, TokenURL: o.TokenURL, Grant: o.Grant, ClientID: o.ClientID,
		ClientSecretEnv: o.ClientSecretEnv, Username: o.Username, PasswordEnv: o.PasswordEnv,
		Scopes: o.Scopes, Insecure: o.Insecure, UseIDToken: o.UseIDToken,
	}
	out.ClientSecretFile = b.file(o, path, "client_secret_file", o.ClientSecretFile)
	out.PasswordFile = b.file(o, path, "password_file", o.PasswordFile)
	out.CACert = b.file(o, path, "cacert", o.CACert)
	switch {
	case o.Issuer == "" && o.TokenURL == "":
		b.missing(o, path, "issuer", "required (or token_url): the provider's issuer URL, such as https://127.0.0.1:8443/realms/NAME")
	case o.Issuer != "":
		b.url(o, path, "issuer", o.Issuer)
	}
	if o.TokenURL != "" {
		b.url(o, path, "token_url", o.TokenURL)
	}
	if o.ClientID == "" {
		b.missing(o, path, "client_id", "required")
	}
	b.envVar(o, path, "client_secret_env", o.ClientSecretEnv)
	b.envVar(o, path, "password_env", o.PasswordEnv)
	if o.ClientSecretEnv != "" && o.ClientSecretFile != "" {
		b.errAt(o, path, "client_secret_file", "give client_secret_env or client_secret_file, not both")
	}
	if o.PasswordEnv != "" && o.PasswordFile != "" {
		b.errAt(o, path, "password_file", "give password_env or password_file, not both")
	}
	out.Grant = b.grant(o, path)
	for i, s := range o.Scopes {
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' }) {
			b.errAt(o, path, "scopes", "scope %d must be one word, got %q", i+1, s)
		}
	}
	if len(out.Scopes) == 0 {
		out.Scopes = []string{auth.DefaultScope}
	}
	if o.RefreshBefore != nil {
		if *o.RefreshBefore < 0 {
			b.errAt(o, path, "refresh_before", "must not be negative, got %s", o.RefreshBefore.std())
		}
		out.RefreshBefore = o.RefreshBefore.std().String()
	}
	return out
}

// grant checks the grant's own requirements and returns it with its
// default applied.
func (b *builder) grant(o *oidcSpec, path string) string {
	grant := o.Grant
	if grant == "" {
		grant = auth.GrantClientCredentials
		if o.Username != "" {
			grant = auth.GrantPassword
		}
	}
	switch grant {
	case auth.GrantPassword:
		if o.Username == "" {
			b.missing(o, path, "username", "required by the password grant")
		}
		if o.PasswordEnv == "" && o.PasswordFile == "" {
			b.missing(o, path, "password_env", "the password grant needs password_env or password_file")
		}
	case auth.GrantClientCredentials:
		for _, k := range []struct{ key, v string }{{"username", o.Username}, {"password_env", o.PasswordEnv}, {"password_file", o.PasswordFile}} {
			if k.v != "" {
				b.errAt(o, path, k.key, "only the password grant uses it (grant is client_credentials)")
			}
		}
		if o.ClientSecretEnv == "" && o.ClientSecretFile == "" {
			b.missing(o, path, "client_secret_env", "the client_credentials grant needs client_secret_env or client_secret_file")
		}
	default:
		msg := `want "password" or "client_credentials", got %q`
		if s := suggest(o.Grant, []string{auth.GrantPassword, auth.GrantClientCredentials}); s != "" {
			msg += ` (did you mean "` + s + `"?)`
		}
		b.errAt(o, path, "grant", msg, o.Grant)
	}
	return grant
}
