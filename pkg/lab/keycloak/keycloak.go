// Package keycloak runs Keycloak (keycloak-quarkus-dist) as the lab's OIDC
// provider: how to start it, how to tell it is ready, and how to give it a
// realm whose tokens oauth2-proxy and kube-apiserver both accept.
//
// The process itself is run by the lab supervisor. This package only says
// what to run (Config.Command), checks readiness with a real request (Ready),
// and configures the realm through the admin REST API (Configure).
//
// Keycloak listens on exactly one socket, HTTPS on 127.0.0.1:HTTPSPort. Plain
// HTTP is off, health and metrics are off (so there is no management
// interface), the cache is local (no JGroups), and Narayana's socket-based
// process id, which otherwise opens a random port, is replaced by a UUID.
//
// Measured on the project's 2-core machine, busy with other builds (load
// 10-15): first start with the build step 80 s (47 CPU-seconds), first start
// on a built distribution 42 s (26), restart 28-30 s (16); 440-580 MB RSS.
package keycloak

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// publicURLRE is a root URL on loopback: the only kind a lab serves.
var publicURLRE = regexp.MustCompile(`^https://127\.0\.0\.1:[0-9]{1,5}$`)

// Version is the keycloak-quarkus-dist version this package is written and
// tested against.
const Version = "26.7.3"

// User is a realm user able to log in with the password grant.
type User struct {
	// Name is the username, and the token's preferred_username. Keycloak
	// lowercases usernames, so it must be lowercase.
	Name string
	// Password is the user's password; required.
	Password string
	// Email is marked verified. Default NAME@authbench.test.
	Email string
}

// Config describes one Keycloak instance of the lab.
type Config struct {
	// Home is the extracted distribution (…/keycloak-26.7.3); required.
	// The first start runs Keycloak's build step, which writes Home/lib/quarkus.
	Home string
	// DataDir holds this instance's state (H2 database, transaction logs);
	// required. Keep it across restarts: the admin user is created only on
	// the first start against an empty database.
	DataDir string
	// Java is the java binary, or a JAVA_HOME directory. Default: java from PATH.
	Java string
	// HTTPSPort is the only port Keycloak listens on, at 127.0.0.1; required.
	HTTPSPort int
	// PublicURL is the root URL clients reach Keycloak at, when that is not
	// BaseURL (the lab's fault proxy in front of it): the tokens' iss and
	// every URL discovery names start with it. Default BaseURL. Keycloak
	// is still configured and probed at BaseURL.
	PublicURL string
	// CertFile and KeyFile are the server's PEM certificate (chain) and key;
	// required. The certificate must be valid for IP 127.0.0.1.
	CertFile, KeyFile string
	// CAFile is the PEM bundle trusted when talking to Keycloak. Default CertFile.
	CAFile string
	// AdminUser is the master realm's bootstrap admin. Default "admin".
	AdminUser string
	// AdminPassword is the bootstrap admin's password; required. It must not
	// change for a given DataDir.
	AdminPassword string
	// Realm is the realm the lab's tokens come from. Default "authbench".
	Realm string
	// ClientID is the confidential client, and the tokens' audience. Default "authbench".
	ClientID string
	// ClientSecret is the client's secret; required.
	ClientSecret string
	// Users are the realm's users (the lab uses alice and bob). Default none.
	Users []User
	// AccessTokenLifespan is the access tokens' lifetime, rounded down to
	// whole seconds. Default 5m.
	AccessTokenLifespan time.Duration
}

// Defaults used when a Config field is empty.
const (
	DefaultAdminUser           = "admin"
	DefaultRealm               = "authbench"
	DefaultClientID            = "authbench"
	DefaultAccessTokenLifespan = 5 * time.Minute
	defaultEmailDomain         = "authbench.test"
)

// WithDefaults returns c with every empty defaulted field filled in.
func (c Config) WithDefaults() Config {
	if c.CAFile == "" {
		c.CAFile = c.CertFile
	}
	if c.AdminUser == "" {
		c.AdminUser = DefaultAdminUser
	}
	if c.Realm == "" {
		c.Realm = DefaultRealm
	}
	if c.ClientID == "" {
		c.ClientID = DefaultClientID
	}
	if c.AccessTokenLifespan == 0 {
		c.AccessTokenLifespan = DefaultAccessTokenLifespan
	}
	users := make([]User, len(c.Users))
	for i, u := range c.Users {
		if u.Email == "" {
			u.Email = u.Name + "@" + defaultEmailDomain
		}
		users[i] = u
	}
	c.Users = users
	return c
}

// Validate reports every problem with c (after defaults), each naming its field.
func (c Config) Validate() error {
	c = c.WithDefaults()
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("keycloak config: %s: %s", field, fmt.Sprintf(format, args...)))
	}
	for _, f := range []struct{ field, v string }{{"Home", c.Home}, {"DataDir", c.DataDir}} {
		field, v := f.field, f.v
		switch {
		case v == "":
			bad(field, "required")
		case !filepath.IsAbs(v):
			bad(field, "must be an absolute path, got %q", v)
		case strings.ContainsAny(v, ";\n"):
			// DataDir ends up inside a JDBC URL, where ';' separates settings.
			bad(field, "must not contain ';' or a newline")
		}
	}
	for _, f := range []struct{ field, v string }{{"CertFile", c.CertFile}, {"KeyFile", c.KeyFile},
		{"AdminPassword", c.AdminPassword}, {"ClientSecret", c.ClientSecret}} {
		if f.v == "" {
			bad(f.field, "required")
		}
	}
	if c.HTTPSPort <= 0 || c.HTTPSPort > 65535 {
		bad("HTTPSPort", "must be 1-65535, got %d", c.HTTPSPort)
	}
	if c.PublicURL != "" && !publicURLRE.MatchString(c.PublicURL) {
		bad("PublicURL", "must be https://127.0.0.1:PORT (no path), got %q", c.PublicURL)
	}
	if c.Realm == "master" {
		bad("Realm", "must not be master: Configure replaces the realm")
	}
	if c.AccessTokenLifespan < time.Second {
		bad("AccessTokenLifespan", "must be at least 1s, got %s", c.AccessTokenLifespan)
	}
	seen := map[string]bool{}
	for i, u := range c.Users {
		field := fmt.Sprintf("Users[%d]", i)
		switch {
		case u.Name == "":
			bad(field+".Name", "required")
		case u.Name != strings.ToLower(u.Name):
			bad(field+".Name", "must be lowercase (Keycloak lowercases usernames), got %q", u.Name)
		case seen[u.Name]:
			bad(field+".Name", "duplicate user %q", u.Name)
		}
		seen[u.Name] = true
		if u.Password == "" {
			bad(field+".Password", "required")
		}
	}
	return errors.Join(errs...)
}

// Prepare validates c and creates DataDir (mode 0700: it holds the database
// with password hashes and the client secret).
func Prepare(c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(c.Home, "bin", "kc.sh")); err != nil {
		return fmt.Errorf("finding keycloak in %s: %w", c.Home, err)
	}
	for _, f := range []string{c.CertFile, c.KeyFile} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("checking keycloak TLS files: %w", err)
		}
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return fmt.Errorf("creating keycloak data dir: %w", err)
	}
	return nil
}

// BaseURL is Keycloak's root URL, https://127.0.0.1:PORT.
func BaseURL(c Config) string { return fmt.Sprintf("https://127.0.0.1:%d", c.HTTPSPort) }

// PublicURL is the root URL clients reach Keycloak at: c.PublicURL, else
// BaseURL.
func PublicURL(c Config) string {
	if c.PublicURL != "" {
		return c.PublicURL
	}
	return BaseURL(c)
}

// IssuerURL is the realm's issuer, PublicURL/realms/REALM: the value for
// oauth2-proxy's and kube-apiserver's --oidc-issuer-url.
func IssuerURL(c Config) string {
	return PublicURL(c) + "/realms/" + c.WithDefaults().Realm
}

// TokenURL is the realm's token endpoint.
func TokenURL(c Config) string { return IssuerURL(c) + "/protocol/openid-connect/token" }
