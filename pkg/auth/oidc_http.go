package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/internal/capool"
	"github.com/authbench/authbench/internal/httpclient"
	"github.com/authbench/authbench/pkg/redact"
)

const (
	// providerTimeout bounds one request to the identity provider.
	providerTimeout = 30 * time.Second
	// maxProviderResponse bounds what is read of a provider's answer.
	maxProviderResponse = 1 << 20
)

// authStyle is how the client authenticates to the token endpoint.
type authStyle int

const (
	styleUnknown authStyle = iota // try basic, then post, remember what works
	styleBasic                    // client_secret_basic: an Authorization header
	stylePost                     // client_secret_post: in the form
)

// providerClient trusts the system's CAs plus CACert, unless Insecure,
// and never follows a redirect with the password or client secret.
func providerClient(cfg *OIDC) (*http.Client, error) {
	tc, err := capool.TLSConfig(cfg.CACert, cfg.Insecure)
	if err != nil {
		return nil, fmt.Errorf("reading oidc cacert: %w", err)
	}
	return httpclient.New(tc, providerTimeout), nil
}

// discover reads the token endpoint from the issuer's OpenID configuration.
// The issuer it reports is not compared with ours: a provider reached
// through a port-forward or a local address names itself differently.
func discover(ctx context.Context, c *http.Client, issuer string) (string, error) {
	u := strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("oidc discovery at %s: %w", redact.URL(u), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderResponse))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("%s: %s", resp.Status, snippet(body)))
	}
	var doc struct {
		TokenEndpoint string `json:"token_endpoint"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fail(fmt.Errorf("not an OpenID configuration: %w", err))
	}
	if doc.TokenEndpoint == "" {
		return fail(errors.New("no token_endpoint in the configuration"))
	}
	if err := checkURL(doc.TokenEndpoint); err != nil {
		return fail(fmt.Errorf("token_endpoint: %w", err))
	}
	return doc.TokenEndpoint, nil
}

// tokenResponse is a token endpoint's answer (RFC 6749 5.1 and 5.2), with
// Keycloak's refresh_expires_in.
type tokenResponse struct {
	AccessToken      string  `json:"access_token"`
	IDToken          string  `json:"id_token"`
	TokenType        string  `json:"token_type"`
	RefreshToken     string  `json:"refresh_token"`
	ExpiresIn        seconds `json:"expires_in"`
	RefreshExpiresIn seconds `json:"refresh_expires_in"`
	Error            string  `json:"error"`
	ErrorDescription string  `json:"error_description"`
}

// post sends a grant, authenticating the client the way the provider
// accepts: client_secret_basic first, then client_secret_post.
func (s *oidcSource) post(ctx context.Context, form url.Values) (*tokenResponse, error) {
	styles := []authStyle{s.style}
	switch {
	case s.clientSecret == "":
		styles = []authStyle{stylePost} // a public client names itself in the form
	case s.style == styleUnknown:
		styles = []authStyle{styleBasic, stylePost}
	}
	var err error
	for _, style := range styles {
		var tr *tokenResponse
		tr, err = s.postAs(ctx, form, style)
		if err == nil {
			if s.clientSecret != "" {
				s.style = style
			}
			return tr, nil
		}
		var te *tokenError
		if !errors.As(err, &te) || !te.badClient() {
			break
		}
	}
	return nil, err
}

func (s *oidcSource) postAs(ctx context.Context, form url.Values, style authStyle) (*tokenResponse, error) {
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("client_id", s.cfg.ClientID)
	if style == stylePost && s.clientSecret != "" {
		f.Set("client_secret", s.clientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.tokenURL, strings.NewReader(f.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if style == styleBasic {
		// RFC 6749 2.3.1: form-encode before base64.
		req.SetBasicAuth(url.QueryEscape(s.cfg.ClientID), url.QueryEscape(s.clientSecret))
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderResponse))
	if err != nil {
		return nil, err
	}
	tr, perr := parseTokenResponse(resp.Header.Get("Content-Type"), body)
	if resp.StatusCode != http.StatusOK || perr != nil || tr.Error != "" {
		te := &tokenError{status: resp.Status, code: resp.StatusCode}
		if tr != nil && tr.Error != "" {
			te.oauthErr, te.desc = tr.Error, tr.ErrorDescription
		} else {
			te.desc = snippet(body)
		}
		return nil, te
	}
	return tr, nil
}

func parseTokenResponse(contentType string, body []byte) (*tokenResponse, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" || mt == "text/plain" {
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, err
		}
		exp, _ := strconv.ParseFloat(v.Get("expires_in"), 64)
		return &tokenResponse{
			AccessToken: v.Get("access_token"), IDToken: v.Get("id_token"),
			TokenType: v.Get("token_type"), RefreshToken: v.Get("refresh_token"),
			ExpiresIn: seconds(exp), Error: v.Get("error"), ErrorDescription: v.Get("error_description"),
		}, nil
	}
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil {
		return nil, fmt.Errorf("not a token response: %w", err)
	}
	return &tr, nil
}

// tokenError is a token endpoint's refusal.
type tokenError struct {
	status   string
	code     int
	oauthErr string // RFC 6749 5.2 error code, if any
	desc     string
}

func (e *tokenError) Error() string {
	msg := e.status
	if e.oauthErr != "" {
		msg += ": " + e.oauthErr
	}
	if e.desc != "" {
		msg += ": " + e.desc
	}
	return msg
}

// badClient says the provider may want the client authenticated otherwise.
func (e *tokenError) badClient() bool {
	return e.oauthErr == "invalid_client" || e.oauthErr == "unauthorized_client" ||
		(e.oauthErr == "" && (e.code == http.StatusUnauthorized || e.code == http.StatusBadRequest))
}

// snippet is the start of a body, on one line, for an error message.
func snippet(body []byte) string {
	const n = 200
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// seconds is a lifetime in seconds; some providers send it as a string.
type seconds float64

func (s *seconds) UnmarshalJSON(b []byte) error {
	v := strings.Trim(string(b), `"`)
	if v == "" || v == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("lifetime %q is not a number of seconds", v)
	}
	*s = seconds(f)
	return nil
}

func (s seconds) duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// readSecret reads a secret from an environment variable or a file, and
// names where it looked when it finds nothing. Only line breaks are trimmed:
// a password may end in a space.
func readSecret(what, env, file string) (string, error) {
	switch {
	case env != "":
		v := strings.TrimRight(os.Getenv(env), "\r\n")
		if v == "" {
			return "", fmt.Errorf("reading %s: environment variable %s is empty or not set", what, env)
		}
		return v, nil
	case file != "":
		b, err := boundedio.ReadFile(file, boundedio.Secret)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", what, err)
		}
		v := strings.TrimRight(string(b), "\r\n")
		if v == "" {
			return "", fmt.Errorf("reading %s: file %s is empty", what, file)
		}
		return v, nil
	}
	return "", nil
}
