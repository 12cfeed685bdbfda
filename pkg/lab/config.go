package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/stacks"
)

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
	// Stacks to start: see stacks.Names(); "all" is every stack. Default all.
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
	// AuthzTimeout is the 3x gateways' ext_authz timeout. Default
	// stacks.DefaultAuthzTimeout (5s, the OpenShift AI gateway's).
	AuthzTimeout time.Duration `json:"authz_timeout,omitempty"`
	// AuthzFailureMode is what the 3x gateways do when the ext_authz call
	// fails or times out. Default stacks.DefaultAuthzFailureMode (deny).
	AuthzFailureMode stacks.AuthzFailureMode `json:"authz_failure_mode,omitempty"`
	// AuthzAPIQPS is a what-if: the API client QPS of the kube-auth-proxy
	// stand-in (burst twice it). Default 0: the real component's
	// client-go default, 5 QPS, burst 10.
	AuthzAPIQPS float64 `json:"authz_api_qps,omitempty"`
	// AuthzCache is a what-if: a TokenReview cache of this TTL in the
	// kube-auth-proxy stand-in. Default 0: none, as the real one.
	AuthzCache time.Duration `json:"authz_cache,omitempty"`
	// ClientLink puts a fault proxy on the client's link to each stack's
	// entry point, and the scenario's targets behind it, so that `lab
	// fault client` can act on it. Default false: no proxy, no cost.
	ClientLink bool `json:"client_link,omitempty"`
	// ClientRTT, when set, is a delay fault of that round trip on the
	// client link, set (and logged) by the platform before the lab is
	// ready: authbench stands that far from every entry point. Implies
	// ClientLink. Whole milliseconds, up to MaxFaultDelay.
	ClientRTT time.Duration `json:"client_rtt,omitempty"`
}

// Upper bounds of the what-ifs: beyond them the figure is a typo.
const (
	MaxAuthzAPIQPS = 100000
	MaxAuthzCache  = 24 * time.Hour
)

// StandinRecord is what state.json and run.json say of the stand-in
// playing component (nil when none does).
func (c *Config) StandinRecord(component string) *results.Standin {
	b, ok := c.Standin(component)
	if !ok {
		return nil
	}
	r := &results.Standin{Plays: b.Mode, CallsPerRequest: b.CallsPerRequest(), APIQPS: b.QPS, APIBurst: b.Burst,
		CapRPS: b.Cap(), Cache: b.Cache(), Flag: b.Flag, Identity: component}
	if b.Mode == stacks.ModeKubeAuthProxy {
		if c.AuthzAPIQPS > 0 {
			r.WhatIf = append(r.WhatIf, fmt.Sprintf("--authz-api-qps=%g", c.AuthzAPIQPS))
		}
		if c.AuthzCache > 0 {
			r.WhatIf = append(r.WhatIf, "--authz-cache="+c.AuthzCache.String())
		}
	}
	return r
}

// Standin is the behaviour of the stand-in playing component (false when
// none does), with the config's what-ifs.
func (c *Config) Standin(component string) (stacks.Behaviour, bool) {
	b, ok := stacks.StandinBehaviour(component)
	return b.WhatIf(c.AuthzAPIQPS, c.AuthzCache), ok
}

// Complete fills defaults, normalises stacks and checks limits and the
// token pool: what every platform does with a request first.
func (c *Config) Complete() error {
	if len(c.Stacks) == 0 {
		c.Stacks = []string{stacks.All}
	}
	names, err := stacks.Parse(c.Stacks)
	if err != nil {
		return err
	}
	c.Stacks = names
	for _, l := range c.Limits {
		if l.None() {
			return fmt.Errorf("limit %s=%s: give a cpu or a memory limit", l.Component, NoLimit)
		}
	}
	if c.AccessTokenLifespan == 0 {
		c.AccessTokenLifespan = DefaultAccessTokenLifespan
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.TokenPool < 0 || c.TokenPool > stacks.MaxTokenPool {
		return fmt.Errorf("--token-pool %d: want 0 to %d users", c.TokenPool, stacks.MaxTokenPool)
	}
	if c.AuthzAPIQPS < 0 || c.AuthzAPIQPS > MaxAuthzAPIQPS {
		return fmt.Errorf("--authz-api-qps %g: want 0 (the real client-go default) to %d", c.AuthzAPIQPS, MaxAuthzAPIQPS)
	}
	if c.AuthzCache < 0 || c.AuthzCache > MaxAuthzCache {
		return fmt.Errorf("--authz-cache %s: want 0 (no cache, as the real one) to %s", c.AuthzCache, MaxAuthzCache)
	}
	if err := c.completeClient(); err != nil {
		return err
	}
	return c.completeAuthz()
}

// completeClient checks --client-rtt, which implies the client link.
func (c *Config) completeClient() error {
	if c.ClientRTT == 0 {
		return nil
	}
	if c.ClientRTT < 0 || c.ClientRTT > MaxFaultDelay || c.ClientRTT%time.Millisecond != 0 {
		return fmt.Errorf("--client-rtt %s: want whole milliseconds up to %s", c.ClientRTT, MaxFaultDelay)
	}
	c.ClientLink = true
	return nil
}

// ClientFault is the fault --client-rtt sets on the client link (false
// without --client-rtt).
func (c *Config) ClientFault() (Fault, bool) {
	return Fault{Link: results.LinkClient, Delay: c.ClientRTT}, c.ClientRTT > 0
}

// completeAuthz fills and checks the gateways' ext_authz settings.
func (c *Config) completeAuthz() error {
	if c.AuthzTimeout == 0 {
		c.AuthzTimeout = stacks.DefaultAuthzTimeout
	}
	if err := stacks.CheckAuthzTimeout(c.AuthzTimeout); err != nil {
		return fmt.Errorf("--authz-timeout: %w", err)
	}
	if c.AuthzFailureMode == "" {
		c.AuthzFailureMode = stacks.DefaultAuthzFailureMode
	}
	m, err := stacks.ParseAuthzFailureMode(string(c.AuthzFailureMode))
	if err != nil {
		return fmt.Errorf("--authz-failure-mode: %w", err)
	}
	c.AuthzFailureMode = m
	return nil
}

// Authz is the gateways' ext_authz settings as the state records them
// (nil when the config runs no 3x stack).
func (c *Config) Authz() *Authz {
	if !c.Has(stacks.Stack3x) && !c.Has(stacks.Stack3xOAuth) {
		return nil
	}
	return &Authz{Timeout: c.AuthzTimeout.String(), FailureMode: string(c.AuthzFailureMode)}
}

// Has says whether the config runs stack.
func (c *Config) Has(stack string) bool {
	for _, s := range c.Stacks {
		if s == stack {
			return true
		}
	}
	return false
}

// AbsDir resolves dir (default DefaultDir) to an absolute path.
func AbsDir(dir string) (string, error) {
	if dir == "" {
		dir = DefaultDir()
	}
	a, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving lab dir %s: %w", dir, err)
	}
	return a, nil
}

// WriteRequest writes request.json.
func WriteRequest(dir string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding lab request: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, RequestFile), append(b, '\n'), 0o644)
}

// ReadRequest reads request.json with defaults filled in.
func ReadRequest(dir string) (Config, error) {
	c, err := readRequestRaw(dir)
	if err != nil {
		return c, err
	}
	return c, c.Complete()
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

// UpOptions configure Up.
type UpOptions struct {
	// Config is what to run.
	Config Config
	// Foreground runs the lab in this process until ctx ends, instead of
	// in a background supervisor. Default false.
	Foreground bool
	// Out receives progress lines. Default io.Discard.
	Out io.Writer
	// Supervisor is the command that runs Serve in the background; the lab
	// dir is also passed in $AUTHBENCH_LAB_SERVE_DIR. Default: this
	// executable with `lab serve --lab-dir DIR`.
	Supervisor []string
}
