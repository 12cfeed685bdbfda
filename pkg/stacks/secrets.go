package stacks

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Identities known to the kube-apiserver through --token-auth-file. Their
// tokens play OpenShift OAuth tokens (same "sha256~" form and length).
const (
	UserAlice = "alice" // bound to the echo Role: allowed
	UserBob   = "bob"   // authenticates, no binding: forbidden
	UserAdmin = "admin" // system:masters, used by the lab itself

	// Service identities of the two RBAC proxies, bound to
	// system:auth-delegator so they may create TokenReviews and SARs.
	SAOauthProxy    = saPrefix + OAuthProxy
	SAKubeRBACProxy = saPrefix + KubeRBACProxy
	// Stack 3x-oauth's ext_authz service and sidecar, apart from 3x's so
	// that the audit log tells their reviews apart.
	SAKubeAuthProxyOAuth = saPrefix + KubeAuthProxyOAuth
	SAKubeRBACProxyOAuth = saPrefix + KubeRBACProxyOAuth

	saPrefix = "system:serviceaccount:" + Namespace + ":"
)

// ProxyServiceAccounts are the RBAC proxies' identities, each named as its
// proxy, so that the audit log tells their reviews apart.
// The replicas' identities (see ReplicaName) follow them.
func ProxyServiceAccounts() []string {
	return append([]string{OAuthProxy, KubeRBACProxy, KubeAuthProxyOAuth, KubeRBACProxyOAuth}, replicaIdentities()...)
}

// tokenUser is one line of the token-auth file.
type tokenUser struct {
	file   string // name under DIR/tokens
	user   string
	groups []string
}

var tokenUsers = []tokenUser{
	{UserAdmin, UserAdmin, []string{"system:masters"}},
	{UserAlice, UserAlice, []string{"authbench-users"}},
	{UserBob, UserBob, []string{"authbench-users"}},
	{OAuthProxy, SAOauthProxy, saGroups},
	{KubeRBACProxy, SAKubeRBACProxy, saGroups},
	{KubeAuthProxyOAuth, SAKubeAuthProxyOAuth, saGroups},
	{KubeRBACProxyOAuth, SAKubeRBACProxyOAuth, saGroups},
}

// allTokenUsers are tokenUsers and the identities of the scalable
// components' replicas, provisioned whether or not a lab scales: the API
// server reads its token file only when it starts.
func allTokenUsers() []tokenUser {
	out := append([]tokenUser(nil), tokenUsers...)
	for _, r := range replicaIdentities() {
		out = append(out, tokenUser{r, saPrefix + r, saGroups})
	}
	return out
}

var saGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + Namespace}

// Secrets are the lab's secret files (mode 0600). Only paths leave this
// package: scenarios and state reference files, never values.
type Secrets struct {
	TokensDir         string // DIR/tokens/NAME: admin, alice, bob, the proxies' identities, pool
	TokenAuthFile     string // kube-apiserver --token-auth-file
	ClientSecret      string // Keycloak confidential client's secret
	CookieSecret      string // oauth2-proxy's cookie secret
	KeycloakAdminPass string // Keycloak bootstrap admin's password
	PasswordsDir      string // DIR/secrets/passwords/USER
}

// Keycloak names (not secret).
const (
	OIDCRealm         = "authbench"
	OIDCClientID      = "authbench"
	KeycloakAdminUser = "admin"
)

// TokenFile is the file holding a static token (a user or a proxy identity).
func (s Secrets) TokenFile(name string) string { return filepath.Join(s.TokensDir, name) }

// PasswordFile is the file holding an OIDC user's Keycloak password.
func (s Secrets) PasswordFile(user string) string { return filepath.Join(s.PasswordsDir, user) }

// SecretPaths names the secret files of a lab dir without creating them.
func SecretPaths(dir string) Secrets {
	return Secrets{
		TokensDir:         filepath.Join(dir, "tokens"),
		TokenAuthFile:     filepath.Join(dir, "secrets", "token-auth.csv"),
		ClientSecret:      filepath.Join(dir, "secrets", "keycloak-client-secret"),
		CookieSecret:      filepath.Join(dir, "secrets", "oauth2-proxy-cookie-secret"),
		KeycloakAdminPass: filepath.Join(dir, "secrets", "keycloak-admin-password"),
		PasswordsDir:      filepath.Join(dir, "secrets", "passwords"),
	}
}

// EnsureSecrets creates every token, password and secret that does not exist
// yet, and rewrites the token-auth file from the token files.
func EnsureSecrets(dir string) (Secrets, error) {
	s := SecretPaths(dir)
	for _, d := range []string{s.TokensDir, s.PasswordsDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return s, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	var csv strings.Builder
	for _, u := range allTokenUsers() {
		tok, err := ensureSecretFile(s.TokenFile(u.file), openshiftToken)
		if err != nil {
			return s, err
		}
		fmt.Fprintf(&csv, "%s,%s,%s,\"%s\"\n", tok, u.user, u.user, strings.Join(u.groups, ","))
	}
	if err := writeFileAtomic(s.TokenAuthFile, []byte(csv.String()), 0o600); err != nil {
		return s, err
	}
	for _, f := range []string{s.ClientSecret, s.KeycloakAdminPass, s.PasswordFile(UserAlice), s.PasswordFile(UserBob)} {
		if _, err := ensureSecretFile(f, password); err != nil {
			return s, err
		}
	}
	// oauth2-proxy wants exactly 16, 24 or 32 bytes: 32 hex characters.
	if _, err := ensureSecretFile(s.CookieSecret, func() string { return randomHex(16) }); err != nil {
		return s, err
	}
	return s, nil
}

// ensureSecretFile returns the file's trimmed content, creating it with
// gen() at mode 0600 when missing or empty.
func ensureSecretFile(path string, gen func() string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) != "" {
		if err := os.Chmod(path, 0o600); err != nil {
			return "", fmt.Errorf("securing %s: %w", path, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	v := gen()
	if err := writeFileAtomic(path, []byte(v+"\n"), 0o600); err != nil {
		return "", err
	}
	return v, nil
}

// ReadSecret reads a secret file written by EnsureSecrets, trimmed.
func ReadSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading secret: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func openshiftToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "sha256~" + base64.RawURLEncoding.EncodeToString(b)
}

func password() string { return randomHex(12) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// OIDCArgs are the kube-apiserver's flags that make Keycloak's lab realm
// (issuer, trusted through caFile) an identity provider of stack 3x.
func OIDCArgs(issuer, caFile string) []string {
	return []string{"--oidc-issuer-url=" + issuer, "--oidc-client-id=" + OIDCClientID,
		"--oidc-username-claim=preferred_username", "--oidc-username-prefix=-", "--oidc-ca-file=" + caFile}
}
