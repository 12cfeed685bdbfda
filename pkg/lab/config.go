package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Stack names.
const (
	Stack2x = "2x" // Route + oauth-proxy
	Stack3x = "3x" // Gateway + kube-auth-proxy + kube-rbac-proxy
	// StackShared marks components both stacks use.
	StackShared = "shared"
)

// Defaults of Config.
const (
	DefaultAccessTokenLifespan = 5 * time.Minute
	DefaultReadyTimeout        = 3 * time.Minute
)

// Config is what a lab runs. `lab up` writes it to request.json, where the
// supervisor reads it.
type Config struct {
	// Stacks to start: "2x", "3x". Default both.
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
}

// complete fills defaults and normalises stacks.
func (c *Config) complete() error {
	if len(c.Stacks) == 0 {
		c.Stacks = []string{Stack2x, Stack3x}
	}
	var stacks []string
	seen := map[string]bool{}
	for _, s := range c.Stacks {
		for _, part := range strings.Split(s, ",") {
			part = strings.TrimSpace(strings.ToLower(part))
			switch part {
			case "all":
				stacks = append(stacks, Stack2x, Stack3x)
			case Stack2x, Stack3x:
				stacks = append(stacks, part)
			default:
				return fmt.Errorf("unknown stack %q: want 2x, 3x or all", part)
			}
		}
	}
	c.Stacks = nil
	for _, s := range stacks {
		if !seen[s] {
			seen[s] = true
			c.Stacks = append(c.Stacks, s)
		}
	}
	sort.Strings(c.Stacks)
	if c.AccessTokenLifespan == 0 {
		c.AccessTokenLifespan = DefaultAccessTokenLifespan
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = DefaultReadyTimeout
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

// DefaultDir is the lab directory when --dir is not given:
// the user cache's authbench/lab (~/.cache/authbench/lab).
func DefaultDir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "authbench-lab")
	}
	return filepath.Join(cache, "authbench", "lab")
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
	var c Config
	b, err := os.ReadFile(filepath.Join(dir, RequestFile))
	if err != nil {
		return c, fmt.Errorf("reading lab request: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("reading lab request %s: %w", filepath.Join(dir, RequestFile), err)
	}
	return c, c.complete()
}
