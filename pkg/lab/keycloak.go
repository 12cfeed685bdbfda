package lab

import (
	"context"
	"path/filepath"

	"github.com/authbench/authbench/pkg/lab/keycloak"
)

// issuerURL is the lab realm's OIDC issuer.
func (b *builder) issuerURL() string {
	return b.url("https", CompKeycloak, "/realms/"+OIDCRealm)
}

// keycloakConfig is the lab's Keycloak without its secrets, which prepare
// reads in (so specs can be built, and golden-tested, without them).
func (b *builder) keycloakConfig(home string) keycloak.Config {
	var users []keycloak.User
	for _, u := range []string{UserAlice, UserBob} {
		users = append(users, keycloak.User{Name: u})
	}
	return keycloak.Config{
		Home: home, DataDir: b.path("data", "keycloak"), HTTPSPort: b.ports[CompKeycloak],
		CertFile: b.certs.Server, KeyFile: b.certs.ServerKey, CAFile: b.certs.CA,
		AdminUser: KeycloakAdminUser, Realm: OIDCRealm, ClientID: OIDCClientID,
		Users: users, AccessTokenLifespan: b.cfg.AccessTokenLifespan,
	}
}

// withSecrets fills in the admin password, client secret and passwords.
func (b *builder) withSecrets(c keycloak.Config) (keycloak.Config, error) {
	var err error
	if c.AdminPassword, err = readSecret(b.secrets.KeycloakAdminPass); err != nil {
		return c, err
	}
	if c.ClientSecret, err = readSecret(b.secrets.ClientSecret); err != nil {
		return c, err
	}
	users := make([]keycloak.User, len(c.Users))
	for i, u := range c.Users {
		if u.Password, err = readSecret(b.secrets.PasswordFile(u.Name)); err != nil {
			return c, err
		}
		users[i] = u
	}
	c.Users = users
	return c, nil
}

func (b *builder) keycloak() (*spec, error) {
	kcsh, err := lookupTool("keycloak")
	if err != nil {
		return nil, err
	}
	home := filepath.Dir(filepath.Dir(kcsh))
	cfg := b.keycloakConfig(home)
	path, args, _ := cfg.Command()
	s := &spec{
		ComponentInfo: ComponentInfo{Name: CompKeycloak, Stack: Stack3x, Role: "oidc-provider",
			Program: "keycloak", Version: toolVersion("keycloak", kcsh), URL: b.issuerURL()},
		argv:  append([]string{path}, args...),
		ports: []string{CompKeycloak},
	}
	s.prepare = func() error {
		full, err := b.withSecrets(cfg)
		if err != nil {
			return err
		}
		if err := keycloak.Prepare(full); err != nil {
			return err
		}
		cfg = full
		// The bootstrap admin's password travels in the environment.
		_, _, s.env = cfg.Command()
		s.exactEnv = true
		return nil
	}
	s.ready = func(ctx context.Context) error { return keycloak.Ready(ctx, cfg) }
	s.setup = func(ctx context.Context) error { return keycloak.Configure(ctx, cfg) }
	return s, nil
}
