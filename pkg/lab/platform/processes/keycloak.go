package processes

import (
	"context"
	"path/filepath"

	"github.com/authbench/authbench/pkg/lab/keycloak"
	"github.com/authbench/authbench/pkg/stacks"
)

// issuerURL is the lab realm's OIDC issuer, through the keycloak link.
func (b *builder) issuerURL() string {
	return b.keycloakPublicURL() + "/realms/" + stacks.OIDCRealm
}

// keycloakConfig is the lab's Keycloak without its secrets, which prepare
// reads in (so specs can be built, and golden-tested, without them).
func (b *builder) keycloakConfig(home string) keycloak.Config {
	var users []keycloak.User
	for _, u := range []string{stacks.UserAlice, stacks.UserBob} {
		users = append(users, keycloak.User{Name: u})
	}
	return keycloak.Config{
		Home: home, DataDir: b.path("data", stacks.Keycloak), HTTPSPort: b.ports[stacks.Keycloak], PublicURL: b.keycloakPublicURL(),
		CertFile: b.certs.Server, KeyFile: b.certs.ServerKey, CAFile: b.certs.CA,
		AdminUser: stacks.KeycloakAdminUser, Realm: stacks.OIDCRealm, ClientID: stacks.OIDCClientID,
		Users: users, AccessTokenLifespan: b.cfg.AccessTokenLifespan,
	}
}

// withSecrets fills in the admin password, client secret and passwords.
func (b *builder) withSecrets(c keycloak.Config) (keycloak.Config, error) {
	var err error
	if c.AdminPassword, err = stacks.ReadSecret(b.secrets.KeycloakAdminPass); err != nil {
		return c, err
	}
	if c.ClientSecret, err = stacks.ReadSecret(b.secrets.ClientSecret); err != nil {
		return c, err
	}
	users := make([]keycloak.User, len(c.Users))
	for i, u := range c.Users {
		if u.Password, err = stacks.ReadSecret(b.secrets.PasswordFile(u.Name)); err != nil {
			return c, err
		}
		users[i] = u
	}
	c.Users = users
	return c, nil
}

func (b *builder) keycloak() (*spec, error) {
	kcsh, err := lookupTool(stacks.ProgramKeycloak)
	if err != nil {
		return nil, err
	}
	home := filepath.Dir(filepath.Dir(kcsh))
	cfg := b.keycloakConfig(home)
	path, args, _ := cfg.Command()
	s := &spec{
		ComponentInfo: b.info(stacks.Keycloak, kcsh),
		argv:          append([]string{path}, args...),
		ports:         portsOf(stacks.Keycloak),
	}
	s.URL = b.issuerURL()
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
