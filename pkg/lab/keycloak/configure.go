package keycloak

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Configure makes the lab realm exist exactly as Config describes it, through
// the admin REST API with a token from the master realm's admin-cli client.
//
// The realm is created in one request (realm, client, audience mapper,
// users with passwords). Its representation's hash is kept as a realm
// attribute: when the realm already carries the same hash, Configure does
// nothing else (a restart costs two requests); when it differs, the realm is
// deleted and created again, which also rotates its signing keys.
func Configure(ctx context.Context, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	c = c.WithDefaults()
	hc, err := HTTPClient(c)
	if err != nil {
		return err
	}
	defer hc.CloseIdleConnections()
	return configure(ctx, hc, c)
}

func configure(ctx context.Context, hc *http.Client, c Config) error {
	token, err := adminToken(ctx, hc, c)
	if err != nil {
		return err
	}
	want := realmRepresentation(c)
	realmURL := BaseURL(c) + "/admin/realms/" + url.PathEscape(c.Realm)

	var have struct {
		Attributes map[string]string `json:"attributes"`
	}
	err = do(ctx, hc, http.MethodGet, realmURL, token, nil, &have)
	switch {
	case err == nil && have.Attributes[configHashAttribute] == want.Attributes[configHashAttribute]:
		return nil
	case err == nil:
		if err := do(ctx, hc, http.MethodDelete, realmURL, token, nil, nil); err != nil {
			return fmt.Errorf("deleting outdated keycloak realm %s: %w", c.Realm, err)
		}
	case statusOf(err) != http.StatusNotFound:
		return fmt.Errorf("reading keycloak realm %s: %w", c.Realm, err)
	}
	if err := do(ctx, hc, http.MethodPost, BaseURL(c)+"/admin/realms", token, want, nil); err != nil {
		return fmt.Errorf("creating keycloak realm %s: %w", c.Realm, err)
	}
	return nil
}

// adminToken gets an access token for the master realm's admin with the
// password grant on the admin-cli client.
func adminToken(ctx context.Context, hc *http.Client, c Config) (string, error) {
	form := url.Values{
		"grant_type": {"password"},
		"client_id":  {"admin-cli"},
		"username":   {c.AdminUser},
		"password":   {c.AdminPassword},
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	tokenURL := BaseURL(c) + "/realms/master/protocol/openid-connect/token"
	if err := do(ctx, hc, http.MethodPost, tokenURL, "", formBody{form}, &tok); err != nil {
		return "", fmt.Errorf("getting keycloak admin token for %s: %w", c.AdminUser, err)
	}
	if tok.AccessToken == "" {
		return "", fmt.Errorf("getting keycloak admin token for %s: no access_token in the answer", c.AdminUser)
	}
	return tok.AccessToken, nil
}
