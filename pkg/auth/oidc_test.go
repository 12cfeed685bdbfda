package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOIDCGrants(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(p *fakeIdP, o *OIDC)
		wantToken  string
		wantGrants string
		wantStyle  authStyle
		wantDisc   int
	}{
		{
			name:       "password grant via discovery",
			setup:      func(*fakeIdP, *OIDC) {},
			wantToken:  "at-1",
			wantGrants: "password",
			wantStyle:  styleBasic,
			wantDisc:   1,
		},
		{
			name: "client credentials with token_url",
			setup: func(p *fakeIdP, o *OIDC) {
				o.Username, o.PasswordFile, o.Issuer, o.TokenURL = "", "", "", p.tokenURL()
			},
			wantToken:  "at-1",
			wantGrants: "client_credentials",
			wantStyle:  styleBasic,
		},
		{
			name:       "client_secret_post when basic is refused",
			setup:      func(p *fakeIdP, _ *OIDC) { p.postOnly = true },
			wantToken:  "at-1",
			wantGrants: "password",
			wantStyle:  stylePost,
			wantDisc:   1,
		},
		{
			name: "public client",
			setup: func(p *fakeIdP, o *OIDC) {
				p.secret, o.ClientSecretFile = "", ""
			},
			wantToken:  "at-1",
			wantGrants: "password",
			wantStyle:  stylePost,
			wantDisc:   1,
		},
		{
			name:       "id token",
			setup:      func(_ *fakeIdP, o *OIDC) { o.UseIDToken = true },
			wantToken:  "id-1",
			wantGrants: "password",
			wantStyle:  styleBasic,
			wantDisc:   1,
		},
		{
			name: "secrets from env",
			setup: func(p *fakeIdP, o *OIDC) {
				p.t.Setenv("IDP_CLIENT_SECRET", p.secret)
				p.t.Setenv("IDP_PASSWORD", p.pass)
				o.ClientSecretFile, o.PasswordFile = "", ""
				o.ClientSecretEnv, o.PasswordEnv = "IDP_CLIENT_SECRET", "IDP_PASSWORD"
			},
			wantToken:  "at-1",
			wantGrants: "password",
			wantStyle:  styleBasic,
			wantDisc:   1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakeIdP(t)
			o := p.spec(t)
			tt.setup(p, o)
			src, err := New(t.Context(), &Spec{OIDC: o})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := src.Token(t.Context())
			if err != nil || tok != tt.wantToken {
				t.Errorf("Token() = %q, %v; want %q", tok, err, tt.wantToken)
			}
			gs := p.seen()
			if got := grantTypes(gs); got != tt.wantGrants {
				t.Errorf("grants = %s, want %s", got, tt.wantGrants)
			}
			if last := gs[len(gs)-1]; last.style != tt.wantStyle {
				t.Errorf("client authentication style = %d, want %d", last.style, tt.wantStyle)
			}
			if p.discoveries != tt.wantDisc {
				t.Errorf("discovery requests = %d, want %d", p.discoveries, tt.wantDisc)
			}
			if src.Kind() != "oidc" {
				t.Errorf("Kind() = %q", src.Kind())
			}
		})
	}
}

func TestOIDCErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, p *fakeIdP, o *OIDC)
		want  string
	}{
		{
			name:  "wrong password",
			setup: func(_ *testing.T, p *fakeIdP, _ *OIDC) { p.pass = "other" },
			want:  "oidc password grant at https://127.0.0.1:",
		},
		{
			name:  "wrong password reason",
			setup: func(_ *testing.T, p *fakeIdP, _ *OIDC) { p.pass = "other" },
			want:  "401 Unauthorized: invalid_grant: Invalid user credentials",
		},
		{
			name:  "wrong client secret",
			setup: func(_ *testing.T, p *fakeIdP, _ *OIDC) { p.secret = "other" },
			want:  "invalid_client",
		},
		{
			name:  "untrusted certificate",
			setup: func(_ *testing.T, _ *fakeIdP, o *OIDC) { o.CACert = "" },
			want:  "certificate",
		},
		{
			name:  "provider down",
			setup: func(_ *testing.T, p *fakeIdP, _ *OIDC) { p.down = true },
			want:  "503 Service Unavailable: maintenance",
		},
		{
			name:  "no discovery document",
			setup: func(_ *testing.T, p *fakeIdP, o *OIDC) { o.Issuer = p.srv.URL + "/realms/nope" },
			want:  "oidc discovery at https://127.0.0.1:",
		},
		{
			name: "password env empty",
			setup: func(t *testing.T, _ *fakeIdP, o *OIDC) {
				t.Setenv("IDP_PASSWORD", "")
				o.PasswordFile, o.PasswordEnv = "", "IDP_PASSWORD"
			},
			want: "reading password: environment variable IDP_PASSWORD is empty or not set",
		},
		{
			name:  "password file missing",
			setup: func(t *testing.T, _ *fakeIdP, o *OIDC) { o.PasswordFile = t.TempDir() + "/none" },
			want:  "reading password: open ",
		},
		{
			name:  "missing cacert",
			setup: func(t *testing.T, _ *fakeIdP, o *OIDC) { o.CACert = t.TempDir() + "/none.pem" },
			want:  "reading oidc cacert: open ",
		},
		{
			name:  "bad grant",
			setup: func(_ *testing.T, _ *fakeIdP, o *OIDC) { o.Grant = "implicit" },
			want:  `grant "implicit" must be "password" or "client_credentials"`,
		},
		{
			name:  "no username",
			setup: func(_ *testing.T, _ *fakeIdP, o *OIDC) { o.Username, o.Grant = "", GrantPassword },
			want:  "the password grant needs username",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newFakeIdP(t)
			o := p.spec(t)
			tt.setup(t, p, o)
			_, err := New(t.Context(), &Spec{OIDC: o})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// The token is renewed before it expires, with the refresh token.
func TestOIDCRefreshBeforeExpiry(t *testing.T) {
	t.Parallel()
	p := newFakeIdP(t)
	p.expiresIn = 2
	o := p.spec(t)
	src, err := New(t.Context(), &Spec{OIDC: o})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := src.Token(t.Context())
	expiry := p.expiryOf(first)
	waitFor(t, "a refreshed token", 5*time.Second, func() bool {
		tok, _ := src.Token(t.Context())
		return tok != first
	})
	gs := p.seen()
	if len(gs) < 2 {
		t.Fatalf("grants = %v", grantTypes(gs))
	}
	r := gs[1]
	if r.grantType != "refresh_token" || r.refreshToken != "rt-1" {
		t.Errorf("second grant = %s with %q, want refresh_token with rt-1", r.grantType, r.refreshToken)
	}
	if !r.at.Before(expiry) {
		t.Errorf("refreshed at %s, after the token expired at %s", r.at.Format(time.StampMilli), expiry.Format(time.StampMilli))
	}
}

// Without a refresh token (client credentials) the grant is repeated.
func TestOIDCRegrant(t *testing.T) {
	t.Parallel()
	p := newFakeIdP(t)
	p.expiresIn = 2
	o := p.spec(t)
	o.Username, o.PasswordFile = "", ""
	src, err := New(t.Context(), &Spec{OIDC: o})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := src.Token(t.Context())
	expiry := p.expiryOf(first)
	waitFor(t, "a new token", 5*time.Second, func() bool {
		tok, _ := src.Token(t.Context())
		return tok != first
	})
	gs := p.seen()
	if got := grantTypes(gs[:2]); got != "client_credentials,client_credentials" {
		t.Errorf("grants = %s", got)
	}
	if !gs[1].at.Before(expiry) {
		t.Errorf("renewed at %s, after expiry at %s", gs[1].at.Format(time.StampMilli), expiry.Format(time.StampMilli))
	}
}

// A refresh token the provider no longer accepts leads to a new grant.
func TestOIDCRefreshRejected(t *testing.T) {
	t.Parallel()
	p := newFakeIdP(t)
	p.expiresIn, p.rejectRefresh = 1, true
	src, err := New(t.Context(), &Spec{OIDC: p.spec(t)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a new token", 5*time.Second, func() bool {
		tok, _ := src.Token(t.Context())
		return tok != "at-1"
	})
	if got := grantTypes(p.seen()[:3]); got != "password,refresh_token,password" {
		t.Errorf("grants = %s, want password,refresh_token,password", got)
	}
}

// When the provider is down, the old token is served until it expires,
// then Token fails, and failures reach the error handler.
func TestOIDCExpiresWhenProviderDown(t *testing.T) {
	t.Parallel()
	p := newFakeIdP(t)
	p.expiresIn = 1
	var mu sync.Mutex
	var reported []error
	onErr := WithErrorHandler(func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() })
	o := p.spec(t)
	earliestExpiry := time.Now().Add(time.Second)
	src, err := New(t.Context(), &Spec{OIDC: o}, onErr, withRetryInterval(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	p.set(func(p *fakeIdP) { p.down = true })
	waitFor(t, "Token to fail", 5*time.Second, func() bool {
		_, err := src.Token(t.Context())
		return err != nil
	})
	if time.Now().Before(earliestExpiry) {
		t.Errorf("Token failed before the token expired")
	}
	_, err = src.Token(t.Context())
	if !strings.Contains(err.Error(), "expired and could not be renewed") || !strings.Contains(err.Error(), "503") {
		t.Errorf("Token() error = %v", err)
	}
	mu.Lock()
	n := len(reported)
	mu.Unlock()
	if n == 0 {
		t.Error("no failure reported to the error handler")
	}
	p.set(func(p *fakeIdP) { p.down = false })
	waitFor(t, "recovery", 5*time.Second, func() bool {
		_, err := src.Token(t.Context())
		return err == nil
	})
}

// Background refreshes stop with the context given to New.
func TestOIDCStopsWithContext(t *testing.T) {
	t.Parallel()
	p := newFakeIdP(t)
	p.expiresIn = 1
	ctx, cancel := context.WithCancel(t.Context())
	if _, err := New(ctx, &Spec{OIDC: p.spec(t)}); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(1500 * time.Millisecond)
	if got := grantTypes(p.seen()); got != "password" {
		t.Errorf("grants after cancel = %s, want only the first", got)
	}
}

func TestOIDCCanceledStart(t *testing.T) {
	p := newFakeIdP(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := New(ctx, &Spec{OIDC: p.spec(t)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("New() error = %v, want context.Canceled", err)
	}
}
