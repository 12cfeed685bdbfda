package processes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/authbench/authbench/pkg/stacks"
)

// passwordGrant gets a user's access token from the lab realm, for
// readiness checks of the 3x stack. The token never leaves the caller.
func passwordGrant(ctx context.Context, c *http.Client, issuer string, sec stacks.Secrets, user string) (string, error) {
	secret, err := stacks.ReadSecret(sec.ClientSecret)
	if err != nil {
		return "", err
	}
	pw, err := stacks.ReadSecret(sec.PasswordFile(user))
	if err != nil {
		return "", err
	}
	form := url.Values{"grant_type": {"password"}, "client_id": {stacks.OIDCClientID}, "client_secret": {secret},
		"username": {user}, "password": {pw}, "scope": {"openid"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, issuer+"/protocol/openid-connect/token",
		strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("password grant for %s: %w", user, err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != http.StatusOK || body.AccessToken == "" {
		return "", fmt.Errorf("password grant for %s: status %d: %s %s", user, resp.StatusCode, body.Error, body.Description)
	}
	return body.AccessToken, nil
}

// apiserverAccepts asks the kube-apiserver who the token's bearer is (a
// SelfSubjectReview) and wants the given username. The apiserver does not
// cache failed authentications, unlike the proxies, so this is the safe
// way to wait for its OIDC authenticator, which polls the issuer every 10s.
func apiserverAccepts(ctx context.Context, c *http.Client, api, token, user string) error {
	body := `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api+"/apis/authentication.k8s.io/v1/selfsubjectreviews",
		strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Status struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("kube-apiserver does not accept %s's OIDC token yet: status %d", user, resp.StatusCode)
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Status.UserInfo.Username != user {
		return fmt.Errorf("kube-apiserver sees %s's OIDC token as %q", user, r.Status.UserInfo.Username)
	}
	return nil
}
