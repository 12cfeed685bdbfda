package keycloak

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Ready makes one real request: the master realm's OIDC discovery document
// over HTTPS, trusting only c's CA. Keycloak is ready when it answers 200 with
// the issuer it was started for, which proves TLS, the database and the
// hostname setting at once.
func Ready(ctx context.Context, c Config) error {
	hc, err := HTTPClient(c)
	if err != nil {
		return err
	}
	defer hc.CloseIdleConnections()
	return ready(ctx, hc, c)
}

func ready(ctx context.Context, hc *http.Client, c Config) error {
	want := PublicURL(c) + "/realms/master"
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if err := do(ctx, hc, http.MethodGet, BaseURL(c)+"/realms/master/.well-known/openid-configuration", "", nil, &doc); err != nil {
		return fmt.Errorf("checking keycloak readiness: %w", err)
	}
	if doc.Issuer != want {
		return fmt.Errorf("checking keycloak readiness: issuer is %q, want %q", doc.Issuer, want)
	}
	return nil
}

// WaitReady calls Ready every interval (default 250ms) until it succeeds or
// ctx ends; then it returns ctx's error joined with Ready's last error. The
// supervisor races it against the process exiting.
func WaitReady(ctx context.Context, c Config, interval time.Duration) error {
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	hc, err := HTTPClient(c)
	if err != nil {
		return err
	}
	defer hc.CloseIdleConnections()
	t := time.NewTicker(interval)
	defer t.Stop()
	var last error
	for {
		// One attempt must not eat the whole wait if a connection hangs.
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := ready(actx, hc, c)
		cancel()
		if err == nil {
			return nil
		}
		// An attempt cut short by ctx says less than the one before it.
		if ctx.Err() == nil || last == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for keycloak: %w (last: %v)", ctx.Err(), last)
		case <-t.C:
		}
	}
}
