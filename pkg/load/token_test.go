package load

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }
func (staticToken) Kind() string                            { return "static" }

type failingToken struct{}

func (failingToken) Token(context.Context) (string, error) {
	return "", errors.New("token endpoint down")
}
func (failingToken) Kind() string { return "oidc" }

func TestTokenFailures(t *testing.T) {
	const secret = "s3cr3t\r\nX-Injected: 1"
	for _, cl := range clients {
		for _, tc := range []struct {
			name   string
			src    auth.TokenSource
			sample string
		}{
			{"source error", failingToken{}, "getting token: token endpoint down"},
			{"control characters", staticToken(secret), "getting token: " + errBadToken.Error()},
		} {
			t.Run(cl.name+"/"+tc.name, func(t *testing.T) {
				s, served := countingServer(t)
				a := attacker(t, plan.Client{}, cl.opts...)
				_, r := runAttack(t, a, Request{URL: s.URL, Token: tc.src}, Spec{Requests: 10, Concurrency: 2})
				if r.Errors[ClassAuthToken] != 10 || r.Requests != 10 || r.Successes != 0 {
					t.Errorf("errors %v requests %d successes %d", r.Errors, r.Requests, r.Successes)
				}
				if served.Load() != 0 {
					t.Errorf("server saw %d requests", served.Load())
				}
				if got := r.ErrorSamples[ClassAuthToken]; got != tc.sample || strings.Contains(got, "s3cr3t") {
					t.Errorf("sample %q, want %q", got, tc.sample)
				}
			})
		}
	}
}
