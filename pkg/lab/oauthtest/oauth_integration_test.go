//go:build integration

package oauthtest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/internal/testenv"
	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/stacks"
)

// poolSize is the lab's token pool: more distinct tokens than any test
// here sends, so that every pooled request is a first use.
const poolSize = 20000

var (
	labDir   string
	labState *lab.State
	labErr   error
	client   *http.Client
)

func TestMain(m *testing.M) {
	processes.ServeIfAsked() // lab.Up starts this test binary as the lab's supervisor
	flag.Parse()
	os.Exit(runWithLab(m))
}

func runWithLab(m *testing.M) int {
	// A lasting dir keeps Keycloak's database (3x) between runs.
	labDir = filepath.Join(toolcache.CacheDir(), "lab-oauth-integration")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	_ = lab.Open(labDir, processes.Platform{}).Down(ctx, io.Discard) // a lab left by an interrupted earlier run
	t0 := time.Now()
	labState, labErr = lab.Open(labDir, processes.Platform{}).Up(ctx, lab.UpOptions{Out: os.Stderr,
		Supervisor: []string{os.Args[0], "-test.run=^$"},
		// These tests measure what the reviews cost the API server, at
		// rates far above kube-auth-proxy's client-go default (5 QPS,
		// which pkg/lab/standin's tests check): the what-if lifts it.
		Config: lab.Config{Stacks: []string{stacks.Stack3x, stacks.Stack3xOAuth}, TokenPool: poolSize, AuthzAPIQPS: stacks.KubeAPIQPS}})
	cancel()
	if labErr == nil {
		fmt.Fprintf(os.Stderr, "lab up in %.1fs\n", time.Since(t0).Seconds())
		client, labErr = labClient(labState.CACert)
	}
	code := m.Run()
	_ = lab.Open(labDir, processes.Platform{}).Down(context.Background(), io.Discard)
	return code
}

func labClient(ca string) (*http.Client, error) {
	pem, err := os.ReadFile(ca)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 64}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}, nil
}

func needLab(t *testing.T) *lab.State {
	t.Helper()
	testenv.NeedLab(t, labErr)
	return labState
}

func target(t *testing.T, name string) lab.StackTarget {
	t.Helper()
	for _, tg := range needLab(t).Targets {
		if tg.Name == name {
			return tg
		}
	}
	t.Fatalf("the lab has no target %s", name)
	return lab.StackTarget{}
}

func readToken(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(labDir, "tokens", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func get(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Through the whole 3x-oauth stack: alice allowed, no token and a tampered
// token refused with kube-auth-proxy's 403 (which nginx's auth_request
// passes on), bob let through by kube-auth-proxy (it asks no SAR) and
// refused by the sidecar's SAR, a pool user allowed like alice.
func TestOAuthStackAnswers(t *testing.T) {
	u := target(t, stacks.Target3xOAuth).URL
	alice := readToken(t, stacks.UserAlice)
	last := "A"
	if strings.HasSuffix(alice, last) {
		last = "B"
	}
	tampered := alice[:len(alice)-1] + last
	if !strings.HasPrefix(alice, "sha256~") {
		t.Errorf("alice's token does not look like an OpenShift OAuth token (sha256~...)")
	}
	tests := []struct {
		name  string
		token string
		want  int
	}{
		{"alice", alice, http.StatusOK},
		{"no token", "", http.StatusForbidden},
		{"bob", readToken(t, stacks.UserBob), http.StatusForbidden},
		{"tampered", tampered, http.StatusForbidden},
		{"pool user", poolTokens(t)[poolSize-1], http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := get(t, u, tt.token); got != tt.want {
				t.Errorf("GET %s as %s = %d, want %d", u, tt.name, got, tt.want)
			}
		})
	}
}

func poolTokens(t *testing.T) []string {
	t.Helper()
	st := needLab(t)
	if st.TokenPool == nil || st.TokenPool.Users != poolSize {
		t.Fatalf("lab state's token pool = %+v, want %d users", st.TokenPool, poolSize)
	}
	info, err := os.Stat(st.TokenPool.File)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("pool file mode %v, want 0600", info.Mode().Perm())
	}
	b, err := os.ReadFile(st.TokenPool.File)
	if err != nil {
		t.Fatal(err)
	}
	toks := strings.Fields(string(b))
	if len(toks) != poolSize {
		t.Fatalf("pool file holds %d tokens, want %d", len(toks), poolSize)
	}
	return toks
}

// counters are both review counters of the lab's API server.
func counters(t *testing.T) []observe.ReviewCounter {
	t.Helper()
	st := needLab(t)
	api, _ := st.Component(stacks.APIServer)
	admin, err := auth.New(t.Context(), &auth.Spec{File: filepath.Join(labDir, "tokens", stacks.UserAdmin)})
	if err != nil {
		t.Fatal(err)
	}
	return []observe.ReviewCounter{
		&observe.MetricsReviews{URL: api.URL, Token: admin, Client: client},
		observe.NewAuditReviews(filepath.Join(labDir, lab.AuditLog)),
	}
}

func readAll(t *testing.T, cs []observe.ReviewCounter) []observe.ReviewTally {
	t.Helper()
	out := make([]observe.ReviewTally, len(cs))
	for i, c := range cs {
		tl, err := c.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = tl
	}
	return out
}
