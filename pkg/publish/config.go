package publish

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// DefaultIndex is Config.Index's default.
const DefaultIndex = "authbench-runs"

// Environment variables Config.WithEnv reads.
const (
	EnvURL      = "AUTHBENCH_OPENSEARCH_URL"
	EnvIndex    = "AUTHBENCH_OPENSEARCH_INDEX"
	EnvUser     = "AUTHBENCH_OPENSEARCH_USER"
	EnvPassword = "AUTHBENCH_OPENSEARCH_PASSWORD"
	EnvCACert   = "AUTHBENCH_OPENSEARCH_CACERT"
)

// Config says where to publish, as the --opensearch* flags, a scenario's
// publish: block or the AUTHBENCH_OPENSEARCH_* variables give it. It holds
// no secret: passwords and tokens come from files, variables or commands.
type Config struct {
	// URL of the OpenSearch or Elasticsearch server (http or https).
	// Empty: do not publish.
	URL string `json:"url,omitempty" yaml:"url,omitempty"`
	// Index to write to and read from. Default "authbench-runs".
	Index string `json:"index,omitempty" yaml:"index,omitempty"`
	// User for basic authentication, with the password from PasswordFile
	// or else $AUTHBENCH_OPENSEARCH_PASSWORD. Default "": no basic auth.
	User         string `json:"user,omitempty" yaml:"user,omitempty"`
	PasswordFile string `json:"password_file,omitempty" yaml:"password_file,omitempty"`
	// Token is a bearer token source (any of pkg/auth's), exclusive with
	// User. Default nil: no token.
	Token *auth.Spec `json:"token,omitempty" yaml:"token,omitempty"`
	// CACert is a PEM file of CAs to trust besides the system's. TLS is
	// always verified.
	CACert string `json:"cacert,omitempty" yaml:"cacert,omitempty"`
	// Timeout bounds each request. Default 30s.
	Timeout time.Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// DefaultTimeout is Config.Timeout's default.
const DefaultTimeout = 30 * time.Second

// WithEnv fills what the config leaves empty from the AUTHBENCH_OPENSEARCH_*
// variables (the password variable is read only when a request is made).
func (c Config) WithEnv() Config {
	fill := func(dst *string, env string) {
		if *dst == "" {
			*dst = os.Getenv(env)
		}
	}
	fill(&c.URL, EnvURL)
	fill(&c.Index, EnvIndex)
	fill(&c.User, EnvUser)
	fill(&c.CACert, EnvCACert)
	return c
}

// Enabled reports whether the config names a server.
func (c Config) Enabled() bool { return c.URL != "" }

func (c Config) index() string {
	if c.Index == "" {
		return DefaultIndex
	}
	return c.Index
}

// Validate reports the first impossible value, naming the setting: the
// plan's publish rules (plan.Publish.Problems) worded for the flags, and
// the token source's own.
func (c Config) Validate() error {
	if c.URL == "" {
		return errors.New("opensearch url \"\": want http(s)://host:port")
	}
	pp := c.plan()
	pp.Index = c.index()
	if ps := pp.Problems(plan.FlagPublishWords); len(ps) > 0 {
		sep := ": "
		if strings.HasPrefix(ps[0].Msg, `"`) {
			sep = " " // opensearch url "…": want …
		}
		return fmt.Errorf("opensearch %s%s%s", ps[0].Key, sep, ps[0].Msg)
	}
	if c.Token != nil {
		if err := c.Token.Validate(); err != nil {
			return fmt.Errorf("opensearch token: %w", err)
		}
	}
	return nil
}

// plan is the config as a plan's publish block, for its rules.
func (c Config) plan() *plan.Publish {
	return &plan.Publish{URL: c.URL, Index: c.Index, User: c.User, PasswordFile: c.PasswordFile,
		Token: c.Token, CACert: c.CACert, Timeout: plan.Duration(c.Timeout)}
}

// password reads the password file, else the variable.
func (c Config) password() (string, error) {
	if c.PasswordFile == "" {
		return os.Getenv(EnvPassword), nil
	}
	b, err := boundedio.ReadFile(c.PasswordFile, boundedio.Secret)
	if err != nil {
		return "", fmt.Errorf("reading opensearch password file: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// FromPlan is the config of a plan's publish block (nil: none), to be
// completed from the environment by WithEnv.
func FromPlan(p *plan.Publish) Config {
	if p == nil {
		return Config{}
	}
	return Config{URL: p.URL, Index: p.Index, User: p.User, PasswordFile: p.PasswordFile,
		Token: p.Token, CACert: p.CACert, Timeout: p.Timeout.D()}
}
