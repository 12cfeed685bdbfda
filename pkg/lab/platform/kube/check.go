package kube

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/keycloak"
	"github.com/authbench/authbench/pkg/stacks"
)

// checkStacks waits until alice gets the echo through every stack's outer
// entry point: the proof that routing, TokenReview and SAR all work. For
// 3x it first waits for the apiserver's OIDC authenticator (which polls
// Keycloak every 10 s), since the proxies would cache an early rejection.
func (r *upRun) checkStacks(ctx context.Context, hc *http.Client, cl *cluster.Cluster, kc keycloak.Config, comps []lab.ComponentInfo) error {
	url := map[string]string{}
	for _, c := range comps {
		url[c.Name] = c.URL
	}
	// Alice's static token: the whole chain of 2x, and of 3x-oauth (both
	// proxies' reviews).
	for _, gw := range []struct{ stack, comp string }{{stacks.Stack2x, stacks.HAProxy}, {stacks.Stack3xOAuth, stacks.EnvoyOAuth}} {
		if !has(r.cfg.Stacks, gw.stack) {
			continue
		}
		tok, err := readSecret(r.sec.TokenFile(stacks.UserAlice))
		if err != nil {
			return err
		}
		if err := poll(ctx, "alice through stack "+gw.stack, func() error { return getEcho(ctx, hc, url[gw.comp], tok) }); err != nil {
			return err
		}
	}
	if !has(r.cfg.Stacks, stacks.Stack3x) {
		return nil
	}
	tok, err := passwordGrant(ctx, hc, kc, stacks.UserAlice)
	if err != nil {
		return err
	}
	api, err := apiClient(cl)
	if err != nil {
		return err
	}
	apiURL := fmt.Sprintf("https://127.0.0.1:%d", cl.Ports.APIServer)
	if err := poll(ctx, "the kube-apiserver accepting Keycloak tokens", func() error {
		return whoAmI(ctx, api, apiURL, tok, stacks.UserAlice)
	}); err != nil {
		return err
	}
	return poll(ctx, "alice through stack 3x", func() error { return getEcho(ctx, hc, url[stacks.Envoy], tok) })
}

// poll calls f until it succeeds or ctx ends.
func poll(ctx context.Context, what string, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %v)", what, ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// getEcho wants http-echo's answer with status 200 for the token.
func getEcho(ctx context.Context, hc *http.Client, u, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), stacks.EchoText) {
		return fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	return nil
}

// passwordGrant gets a user's access token from the lab realm; it never
// leaves the caller.
func passwordGrant(ctx context.Context, hc *http.Client, kc keycloak.Config, user string) (string, error) {
	pw := ""
	for _, u := range kc.Users {
		if u.Name == user {
			pw = u.Password
		}
	}
	form := url.Values{"grant_type": {"password"}, "client_id": {kc.ClientID}, "client_secret": {kc.ClientSecret},
		"username": {user}, "password": {pw}, "scope": {"openid"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, keycloak.TokenURL(kc), strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("password grant for %s: %w", user, err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != http.StatusOK || body.AccessToken == "" {
		return "", fmt.Errorf("password grant for %s: status %d", user, resp.StatusCode)
	}
	return body.AccessToken, nil
}

// apiClient trusts the cluster's CA (the apiserver's serving certificate).
func apiClient(cl *cluster.Cluster) (*http.Client, error) {
	pool, err := capool.File(filepath.Join(cl.Dir, "pki", "ca.crt"), false)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's CA: %w", err)
	}
	tr := httpclient.Refuse(&http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}})
	return &http.Client{Timeout: 10 * time.Second, Transport: tr, CheckRedirect: httpclient.NoRedirect}, nil
}

// whoAmI asks the apiserver who the token's bearer is (a
// SelfSubjectReview) and wants user.
func whoAmI(ctx context.Context, hc *http.Client, api, token, user string) error {
	body := `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api+"/apis/authentication.k8s.io/v1/selfsubjectreviews", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var rv struct {
		Status struct {
			UserInfo struct{ Username string } `json:"userInfo"`
		} `json:"status"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("kube-apiserver does not accept %s's OIDC token yet: status %d", user, resp.StatusCode)
	}
	if err := json.Unmarshal(b, &rv); err != nil || rv.Status.UserInfo.Username != user {
		return fmt.Errorf("kube-apiserver sees %s's OIDC token as %q", user, rv.Status.UserInfo.Username)
	}
	return nil
}

// waitScraped waits until the Prometheus has scraped the kubelet's
// cAdvisor, so that the first run finds its series.
func waitScraped(ctx context.Context, hc *http.Client, prom string) error {
	q := prom + "/api/v1/query?query=" + url.QueryEscape(`up{job="kubelet-cadvisor"}`)
	return poll(ctx, "prometheus scraping cAdvisor", func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, q, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var body struct {
			Data struct {
				Result []struct {
					Value []any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return err
		}
		if len(body.Data.Result) == 0 || len(body.Data.Result[0].Value) < 2 || body.Data.Result[0].Value[1] != "1" {
			return fmt.Errorf("kubelet-cadvisor not scraped yet")
		}
		return nil
	})
}
