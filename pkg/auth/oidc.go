package auth

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/authbench/authbench/pkg/redact"
)

const (
	// maxRetryInterval caps the backoff between failed renewals.
	maxRetryInterval = 30 * time.Second
	// minRenewWait keeps a provider that hands out nearly expired tokens
	// from being hammered.
	minRenewWait = 100 * time.Millisecond
)

// oidcSource gets tokens with an OAuth2 grant and renews each before it
// expires, from a background goroutine, so that Token is one atomic load.
type oidcSource struct {
	cfg           OIDC
	grant         string
	tokenURL      string
	clientSecret  string
	password      string
	scopes        []string
	refreshBefore time.Duration
	retry         time.Duration
	client        *http.Client
	scrub         redact.Scrubber
	onError       func(error)
	state         atomic.Pointer[oidcState]

	// Used only by whoever is obtaining a token: New, then the refresher.
	refreshToken  string
	refreshExpiry time.Time // zero: unknown
	style         authStyle
}

// oidcState is what Token serves.
type oidcState struct {
	token    string
	obtained time.Time
	expiry   time.Time // zero: the token does not expire
	err      error     // set once the token expired and could not be renewed
}

func newOIDC(ctx context.Context, cfg *OIDC, o options) (*oidcSource, error) {
	s := &oidcSource{cfg: *cfg, grant: cfg.grant(), retry: o.retryInterval, onError: o.onError}
	s.refreshBefore, _ = cfg.refreshBefore() // checked by Validate
	s.scopes = cfg.Scopes
	if len(s.scopes) == 0 {
		s.scopes = []string{DefaultScope}
	}
	var err error
	if s.clientSecret, err = readSecret("client secret", cfg.ClientSecretEnv, cfg.ClientSecretFile); err != nil {
		return nil, err
	}
	if s.password, err = readSecret("password", cfg.PasswordEnv, cfg.PasswordFile); err != nil {
		return nil, err
	}
	s.scrub.Add(s.clientSecret, s.password, url.QueryEscape(s.clientSecret), url.QueryEscape(s.password))
	if s.clientSecret != "" {
		// The Basic header of client_secret_basic, should a provider echo it.
		s.scrub.Add(base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(cfg.ClientID) + ":" + url.QueryEscape(s.clientSecret))))
	}
	if s.client = o.httpClient; s.client == nil {
		if s.client, err = providerClient(cfg); err != nil {
			return nil, err
		}
	}
	if s.tokenURL = cfg.TokenURL; s.tokenURL == "" {
		if s.tokenURL, err = discover(ctx, s.client, cfg.Issuer); err != nil {
			return nil, s.scrub.Error(err)
		}
	}
	st, err := s.obtain(ctx)
	if err != nil {
		return nil, err
	}
	s.state.Store(st)
	if !st.expiry.IsZero() {
		go s.refresh(ctx, st)
	}
	return s, nil
}

// Token returns the current token, or an error once the token has expired
// and could not be renewed.
func (s *oidcSource) Token(context.Context) (string, error) {
	st := s.state.Load()
	if st.err != nil {
		return "", st.err
	}
	return st.token, nil
}

// Kind is "oidc".
func (s *oidcSource) Kind() string { return "oidc" }

// Format names the provider, grant, client and user; never a secret.
func (s *oidcSource) Format(f fmt.State, _ rune) {
	d := fmt.Sprintf("%s grant at %s, client %s", s.grant, redact.URL(s.tokenURL), s.cfg.ClientID)
	if s.cfg.Username != "" {
		d += ", user " + s.cfg.Username
	}
	describe(f, "oidc", d)
}

// refresh renews the token before it expires until ctx is done. A failed
// renewal is retried with backoff; the old token is served until it expires,
// then Token reports the failure until a renewal succeeds.
func (s *oidcSource) refresh(ctx context.Context, cur *oidcState) {
	backoff := s.retry
	wake := s.renewAt(cur)
	for {
		if !sleepUntil(ctx, wake) {
			return
		}
		next, err := s.obtain(ctx)
		if err == nil {
			cur, backoff = next, s.retry
			s.state.Store(cur)
			if cur.expiry.IsZero() {
				return
			}
			wake = s.renewAt(cur)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		s.onError(err)
		now := time.Now()
		if !now.Before(cur.expiry) {
			s.state.Store(&oidcState{err: fmt.Errorf("oidc token expired and could not be renewed: %w", err)})
		}
		wake = now.Add(backoff)
		if now.Before(cur.expiry) && wake.After(cur.expiry) {
			wake = cur.expiry // wake at expiry to stop serving the stale token
		}
		backoff = min(2*backoff, maxRetryInterval)
	}
}

// renewAt is when to renew st: RefreshBefore ahead of expiry, but no
// earlier than half-way through the token's lifetime.
func (s *oidcSource) renewAt(st *oidcState) time.Time {
	life := st.expiry.Sub(st.obtained)
	at := st.expiry.Add(-min(s.refreshBefore, life/2))
	return later(at, time.Now().Add(minRenewWait))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sleepUntil waits until t and reports false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// obtain gets a new token: with the refresh token if there is a usable one,
// falling back to the configured grant.
func (s *oidcSource) obtain(ctx context.Context) (*oidcState, error) {
	if s.refreshToken != "" && (s.refreshExpiry.IsZero() || time.Now().Before(s.refreshExpiry)) {
		st, err := s.exchange(ctx, "refresh_token", url.Values{
			"grant_type":    {"refresh_token"},
			"refresh_token": {s.refreshToken},
		})
		if err == nil {
			return st, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		// The session may have ended at the provider: grant afresh.
		s.refreshToken = ""
	}
	form := url.Values{"grant_type": {s.grant}, "scope": {strings.Join(s.scopes, " ")}}
	if s.grant == GrantPassword {
		form.Set("username", s.cfg.Username)
		form.Set("password", s.password)
	}
	return s.exchange(ctx, s.grant, form)
}

// exchange posts one grant and turns the response into a state.
func (s *oidcSource) exchange(ctx context.Context, grant string, form url.Values) (*oidcState, error) {
	start := time.Now()
	tr, err := s.post(ctx, form)
	if err != nil {
		return nil, s.scrub.Error(fmt.Errorf("oidc %s grant at %s: %w", grant, redact.URL(s.tokenURL), err))
	}
	s.scrub.Add(tr.AccessToken, tr.IDToken, tr.RefreshToken)
	tok := tr.AccessToken
	if s.cfg.UseIDToken {
		tok = tr.IDToken
	}
	if err := checkToken(tok); err != nil {
		what := "access_token"
		if s.cfg.UseIDToken {
			what = "id_token"
		}
		return nil, fmt.Errorf("oidc %s grant at %s: %s in the response: %w", grant, redact.URL(s.tokenURL), what, err)
	}
	if tr.RefreshToken != "" {
		s.refreshToken = tr.RefreshToken
		s.refreshExpiry = time.Time{}
		if tr.RefreshExpiresIn > 0 {
			s.refreshExpiry = start.Add(tr.RefreshExpiresIn.duration())
		}
	}
	st := &oidcState{token: tok, obtained: start}
	if tr.ExpiresIn > 0 {
		st.expiry = start.Add(tr.ExpiresIn.duration())
	}
	return st, nil
}
