package keycloak

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
)

// labConfig is a valid Config with fixed, fake paths and secrets.
func labConfig() Config {
	return Config{
		Home:          "/cache/tools/keycloak-26.7.3",
		DataDir:       "/lab/keycloak",
		HTTPSPort:     18443,
		CertFile:      "/lab/certs/keycloak.pem",
		KeyFile:       "/lab/certs/keycloak-key.pem",
		AdminPassword: "admin-pw",
		ClientSecret:  "client-secret",
		Users: []User{
			{Name: "alice", Password: "alice-pw"},
			{Name: "bob", Password: "bob-pw", Email: "bob@example.org"},
		},
	}
}

func TestWithDefaults(t *testing.T) {
	c := labConfig().WithDefaults()
	for _, tc := range []struct{ field, got, want string }{
		{"CAFile", c.CAFile, "/lab/certs/keycloak.pem"},
		{"AdminUser", c.AdminUser, "admin"},
		{"Realm", c.Realm, "authbench"},
		{"ClientID", c.ClientID, "authbench"},
		{"Users[0].Email", c.Users[0].Email, "alice@authbench.test"},
		{"Users[1].Email", c.Users[1].Email, "bob@example.org"},
		{"AccessTokenLifespan", c.AccessTokenLifespan.String(), "5m0s"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s = %q, want %q", tc.field, tc.got, tc.want)
			}
		})
	}
	orig := labConfig()
	_ = orig.WithDefaults()
	if orig.Users[0].Email != "" {
		t.Errorf("WithDefaults changed the caller's Users slice")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   []string // substrings of the error; none means valid
	}{
		{"valid", func(*Config) {}, nil},
		{"no users is valid", func(c *Config) { c.Users = nil }, nil},
		{"empty", func(c *Config) { *c = Config{} }, []string{
			"Home: required", "DataDir: required", "CertFile: required", "KeyFile: required",
			"AdminPassword: required", "ClientSecret: required", "HTTPSPort: must be 1-65535, got 0"}},
		{"relative home", func(c *Config) { c.Home = "keycloak" }, []string{`Home: must be an absolute path, got "keycloak"`}},
		{"semicolon in data dir", func(c *Config) { c.DataDir = "/lab;AUTO_SERVER=TRUE" }, []string{"DataDir: must not contain ';'"}},
		{"port too big", func(c *Config) { c.HTTPSPort = 70000 }, []string{"HTTPSPort: must be 1-65535, got 70000"}},
		{"public url through a proxy", func(c *Config) { c.PublicURL = "https://127.0.0.1:9443" }, nil},
		{"public url with a path", func(c *Config) { c.PublicURL = "https://127.0.0.1:9443/kc" }, []string{"PublicURL: must be https://127.0.0.1:PORT"}},
		{"public url off loopback", func(c *Config) { c.PublicURL = "https://example.com:443" }, []string{"PublicURL: must be https://127.0.0.1:PORT"}},
		{"master realm", func(c *Config) { c.Realm = "master" }, []string{"Realm: must not be master"}},
		{"short lifespan", func(c *Config) { c.AccessTokenLifespan = time.Millisecond }, []string{"AccessTokenLifespan: must be at least 1s"}},
		{"uppercase user", func(c *Config) { c.Users[0].Name = "Alice" }, []string{`Users[0].Name: must be lowercase`}},
		{"duplicate user", func(c *Config) { c.Users[1].Name = "alice" }, []string{`Users[1].Name: duplicate user "alice"`}},
		{"user without password", func(c *Config) { c.Users[1].Password = "" }, []string{"Users[1].Password: required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := labConfig()
			tc.change(&c)
			err := c.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want errors %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestURLs(t *testing.T) {
	c := labConfig()
	for _, tc := range []struct{ name, got, want string }{
		{"issuer", IssuerURL(c), "https://127.0.0.1:18443/realms/authbench"},
		{"token", TokenURL(c), "https://127.0.0.1:18443/realms/authbench/protocol/openid-connect/token"},
		{"other realm", IssuerURL(Config{HTTPSPort: 1, Realm: "r"}), "https://127.0.0.1:1/realms/r"},
		{"issuer through a proxy", IssuerURL(Config{HTTPSPort: 1, PublicURL: "https://127.0.0.1:2"}), "https://127.0.0.1:2/realms/authbench"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestRealmRepresentationGolden(t *testing.T) {
	b, err := json.MarshalIndent(realmRepresentation(labConfig()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, "testdata/realm.json", append(b, '\n'))
}

func TestConfigHash(t *testing.T) {
	base := realmRepresentation(labConfig()).Attributes[configHashAttribute]
	if len(base) != 64 {
		t.Fatalf("hash %q is not a hex sha256", base)
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		same   bool
	}{
		{"same config", func(*Config) {}, true},
		{"defaults spelled out", func(c *Config) { c.Realm, c.AccessTokenLifespan = "authbench", 5*time.Minute }, true},
		{"port is not in the realm", func(c *Config) { c.HTTPSPort = 9443 }, true},
		{"lifespan", func(c *Config) { c.AccessTokenLifespan = time.Minute }, false},
		{"password", func(c *Config) { c.Users[0].Password = "other" }, false},
		{"client secret", func(c *Config) { c.ClientSecret = "other" }, false},
		{"one user less", func(c *Config) { c.Users = c.Users[:1] }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := labConfig()
			tc.change(&c)
			got := realmRepresentation(c).Attributes[configHashAttribute]
			if (got == base) != tc.same {
				t.Errorf("hash equal to the base config's: %v, want %v", got == base, tc.same)
			}
		})
	}
}

func TestRealmLifespans(t *testing.T) {
	for _, tc := range []struct {
		lifespan             time.Duration
		token, idle, maxLife int
	}{
		{5 * time.Minute, 300, 1800, 36000},
		{90 * time.Second, 90, 1800, 36000},
		{2500 * time.Millisecond, 2, 1800, 36000},
		{12 * time.Hour, 43200, 43200, 43200},
	} {
		t.Run(tc.lifespan.String(), func(t *testing.T) {
			c := labConfig()
			c.AccessTokenLifespan = tc.lifespan
			r := realmRepresentation(c)
			got := []int{r.AccessTokenLifespan, r.SSOSessionIdleTimeout, r.SSOSessionMaxLifespan}
			if want := []int{tc.token, tc.idle, tc.maxLife}; !slices.Equal(got, want) {
				t.Errorf("token, idle, max lifespans = %v, want %v", got, want)
			}
		})
	}
}
