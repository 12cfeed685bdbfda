package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/lab/internal/ports"
)

// Stack names.
const (
	Stack2x = "2x" // Route + oauth-proxy
	Stack3x = "3x" // Gateway + kube-auth-proxy + kube-rbac-proxy
	// Stack3xOAuth is 3x as the migration reports ran it: OpenShift OAuth
	// tokens, validated by the ext_authz service through TokenReview.
	Stack3xOAuth = "3x-oauth"
	// StackShared marks components both stacks use.
	StackShared = "shared"
)

// loopback is the only address the lab binds or targets.
const loopback = ports.Loopback

// Defaults of Config.
const (
	DefaultAccessTokenLifespan = 5 * time.Minute
	DefaultReadyTimeout        = 3 * time.Minute
)

// Config is what a lab runs. `lab up` writes it to request.json, where the
// supervisor reads it.
type Config struct {
	// Platform is where the components run: PlatformProcesses or
	// PlatformKube. Default processes.
	Platform string `json:"platform,omitempty"`
	// Stacks to start: see Stacks(); "all" is every stack. Default all.
	Stacks []string `json:"stacks"`
	// Limits put CPU and memory limits on components. Default none.
	Limits []Limit `json:"limits,omitempty"`
	// Ports pins port names (as in State.Ports) to fixed ports. Default:
	// the previous lab's ports when free, else free ports.
	Ports map[string]int `json:"ports,omitempty"`
	// AccessTokenLifespan of Keycloak's access tokens. Default 5m.
	AccessTokenLifespan time.Duration `json:"access_token_lifespan,omitempty"`
	// ReadyTimeout bounds the whole start. Default 3m (Keycloak's first
	// start builds its server, ~30 s on 2 cores).
	ReadyTimeout time.Duration `json:"ready_timeout,omitempty"`
	// TokenPool issues static tokens for TokenPool users, alice-1 ...
	// alice-N, bound like alice, and writes them one per line to
	// tokens/pool (0600) for a token source of kind pool: with more
	// distinct tokens than a proxy's cache answers, every request misses.
	// Default 0: no pool.
	TokenPool int `json:"token_pool,omitempty"`
}

// StackAll selects every stack.
const StackAll = "all"

// Stacks lists the stacks a lab can run, in order: the names --stack
// accepts besides StackAll.
func Stacks() []string { return []string{Stack2x, Stack3x, Stack3xOAuth} }

// ParseStacks reads stack names (each may be a comma-separated list, and
// StackAll means every stack) into the sorted set they select.
func ParseStacks(values []string) ([]string, error) {
	known := Stacks()
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(strings.ToLower(part))
			switch {
			case part == StackAll:
				for _, k := range known {
					add(k)
				}
			case slices.Contains(known, part):
				add(part)
			default:
				return nil, fmt.Errorf("unknown stack %q: want %s or %s", part, strings.Join(known, ", "), StackAll)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// complete fills defaults, normalises stacks and checks limits.
func (c *Config) complete() error {
	if len(c.Stacks) == 0 {
		c.Stacks = []string{StackAll}
	}
	stacks, err := ParseStacks(c.Stacks)
	if err != nil {
		return err
	}
	c.Stacks = stacks
	for _, l := range c.Limits {
		if l.empty() {
			return fmt.Errorf("limit %s=%s: give a cpu or a memory limit", l.Component, NoLimit)
		}
	}
	if c.AccessTokenLifespan == 0 {
		c.AccessTokenLifespan = DefaultAccessTokenLifespan
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.TokenPool < 0 || c.TokenPool > MaxTokenPool {
		return fmt.Errorf("token pool of %d users: want 0 to %d", c.TokenPool, MaxTokenPool)
	}
	return nil
}

func (c *Config) has(stack string) bool {
	for _, s := range c.Stacks {
		if s == stack {
			return true
		}
	}
	return false
}

// absDir resolves dir (default DefaultDir) to an absolute path.
func absDir(dir string) (string, error) {
	if dir == "" {
		dir = DefaultDir()
	}
	a, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving lab dir %s: %w", dir, err)
	}
	return a, nil
}

func writeRequest(dir string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding lab request: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, RequestFile), append(b, '\n'), 0o644)
}

func readRequest(dir string) (Config, error) {
	c, err := readRequestRaw(dir)
	if err != nil {
		return c, err
	}
	return c, c.complete()
}

// readRequestRaw reads request.json as written, without defaults.
func readRequestRaw(dir string) (Config, error) {
	var c Config
	b, err := os.ReadFile(filepath.Join(dir, RequestFile))
	if err != nil {
		return c, fmt.Errorf("reading lab request: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("reading lab request %s: %w", filepath.Join(dir, RequestFile), err)
	}
	return c, nil
}
