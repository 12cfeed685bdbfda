//go:build integration

package standin_test

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
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/ladder"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/stacks"
)

// The stand-ins on the processes platform, as the lab runs them by
// default (the real components' behaviour): 2x's oauth-proxy and
// 3x-oauth's kube-auth-proxy, with a small token pool.
const poolSize = 200

var (
	labDir   string
	labState *lab.State
	labErr   error
	client   *http.Client
)

func TestMain(m *testing.M) {
	processes.ServeIfAsked() // the supervisor, and the stand-ins it starts, are this test binary
	flag.Parse()
	os.Exit(runWithLab(m))
}

func runWithLab(m *testing.M) int {
	dir, err := os.MkdirTemp("", "authbench-standin-lab-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	labDir = dir
	labState, labErr = up(dir, lab.Config{Stacks: []string{stacks.Stack2x, stacks.Stack3xOAuth}, TokenPool: poolSize})
	if labErr == nil {
		client, labErr = labClient(labState.CACert)
	}
	code := m.Run()
	_ = lab.Open(dir, processes.Platform{}).Down(context.Background(), io.Discard)
	return code
}

func up(dir string, c lab.Config) (*lab.State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	st, err := lab.Open(dir, processes.Platform{}).Up(ctx, lab.UpOptions{Out: io.Discard,
		Supervisor: []string{os.Args[0], "-test.run=^$"}, Config: c})
	if err == nil {
		fmt.Fprintf(os.Stderr, "lab (%v) up in %.1fs\n", c.Stacks, time.Since(t0).Seconds())
	}
	return st, err
}

func labClient(ca string) (*http.Client, error) {
	pem, err := os.ReadFile(ca)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 20 * time.Second}, nil
}

func component(t *testing.T, name string) lab.ComponentInfo {
	t.Helper()
	testenv.NeedLab(t, labErr)
	c, ok := labState.Component(name)
	if !ok {
		t.Fatalf("the lab has no %s", name)
	}
	return c
}

func token(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(labDir, "tokens", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func pool(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(labState.TokenPool.File)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func get(t *testing.T, url, tok string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func tamper(tok string) string {
	last := "A"
	if strings.HasSuffix(tok, last) {
		last = "B"
	}
	return tok[:len(tok)-1] + last
}

// reviews counts, from the audit log, the TokenReviews and SARs the
// component made while f ran.
func reviews(t *testing.T, name string, f func()) (tr, sar int64) {
	t.Helper()
	a := observe.NewAuditReviews(filepath.Join(labDir, lab.AuditLog))
	before, err := a.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f()
	time.Sleep(300 * time.Millisecond) // the audit backend writes after the response
	after, err := a.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w := observe.ReviewWindow(a.Source(), before, after, 1)
	for _, c := range w.Callers {
		if strings.HasSuffix(c.Caller, ":"+name) {
			tr, sar = tr+c.TokenReviews, sar+c.SubjectAccessReviews
		}
	}
	return tr, sar
}

// Each role answers as the real component: oauth-proxy refuses with a 403
// and its login page, kube-auth-proxy with a 403 for a missing or invalid
// token and lets bob (authenticated, unbound) through: it asks no SAR.
func TestStatuses(t *testing.T) {
	alice, bob := token(t, stacks.UserAlice), token(t, stacks.UserBob)
	for _, tc := range []struct {
		component, user, tok string
		code                 int
		body                 string
	}{
		{stacks.OAuthProxy, "alice", alice, 200, stacks.EchoText},
		{stacks.OAuthProxy, "bob", bob, 403, "Log in"},
		{stacks.OAuthProxy, "no token", "", 403, "Log in"},
		{stacks.OAuthProxy, "tampered", tamper(alice), 403, "Log in"},
		{stacks.KubeAuthProxyOAuth, "alice", alice, 200, stacks.AuthzOKText},
		{stacks.KubeAuthProxyOAuth, "bob", bob, 200, stacks.AuthzOKText},
		{stacks.KubeAuthProxyOAuth, "no token", "", 403, "403 Forbidden"},
		{stacks.KubeAuthProxyOAuth, "tampered", tamper(alice), 403, "403 Forbidden"},
		// Through 3x-oauth the sidecar's SAR refuses bob.
		{stacks.EnvoyOAuth, "bob", bob, 403, ""},
		{stacks.EnvoyOAuth, "no token", "", 403, ""},
	} {
		t.Run(tc.component+"/"+tc.user, func(t *testing.T) {
			u := component(t, tc.component).URL
			if code, body := get(t, u, tc.tok); code != tc.code || !strings.Contains(body, tc.body) {
				t.Errorf("GET %s as %s: %d %.80q, want %d with %q", u, tc.user, code, body, tc.code, tc.body)
			}
		})
	}
}

// Reviews per request, one token against a pool of distinct ones:
// oauth-proxy caches both reviews, kube-auth-proxy asks a TokenReview for
// every request and never a SAR.
func TestReviewsPerRequest(t *testing.T) {
	const n = 8
	toks := pool(t)
	for i, tc := range []struct {
		component string
		pool      bool
		wantTR    [2]int64 // inclusive bounds
		wantSAR   [2]int64
	}{
		{stacks.OAuthProxy, false, [2]int64{0, 1}, [2]int64{0, 1}},
		{stacks.OAuthProxy, true, [2]int64{n, n}, [2]int64{n, n}},
		{stacks.KubeAuthProxyOAuth, false, [2]int64{n, n}, [2]int64{0, 0}},
		{stacks.KubeAuthProxyOAuth, true, [2]int64{n, n}, [2]int64{0, 0}},
	} {
		name := map[bool]string{false: "one token", true: "pool"}[tc.pool]
		t.Run(tc.component+"/"+name, func(t *testing.T) {
			u := component(t, tc.component).URL
			alice := token(t, stacks.UserAlice)
			get(t, u, alice) // warm the one token's cache
			tr, sar := reviews(t, tc.component, func() {
				for j := range n {
					tok := alice
					if tc.pool {
						tok = toks[i*n+j]
					}
					if code, _ := get(t, u, tok); code != 200 {
						t.Errorf("request %d: %d", j, code)
					}
				}
			})
			if tr < tc.wantTR[0] || tr > tc.wantTR[1] || sar < tc.wantSAR[0] || sar > tc.wantSAR[1] {
				t.Errorf("%d requests: %d TokenReviews and %d SARs, want %v and %v", n, tr, sar, tc.wantTR, tc.wantSAR)
			}
		})
	}
}

// labPlan is the lab's scenario reduced to 3x-oauth with alice's token, at
// 200 req/s for a few seconds.
func labPlan(t *testing.T, dir string) *plan.Plan {
	t.Helper()
	y, err := lab.Open(dir, processes.Platform{}).Scenario(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(filepath.Join(dir, lab.ScenarioFile), y)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ladder.FindTarget(p, stacks.Target3xOAuth)
	if err != nil {
		t.Fatal(err)
	}
	tg.Token = &auth.Spec{File: filepath.Join(dir, "tokens", stacks.UserAlice)}
	p.Targets = []plan.Target{tg}
	p.Load = plan.Load{Rate: 200, Duration: plan.Duration(4 * time.Second), Concurrency: 20, Iterations: 1}
	return p
}

// capRun runs the plan observed as the CLI does (the lab's record and the
// audit counts), and returns the ext_authz service's TokenReviews a second
// and the run's findings.
func capRun(t *testing.T, dir string) (float64, []results.Finding) {
	t.Helper()
	p := labPlan(t, dir)
	obs, err := sampling.Observe(t.Context(), p, sampling.Options{LabDir: dir, Platforms: []lab.Platform{processes.Platform{}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := runner.Run(t.Context(), runner.Options{Plan: p, Out: t.TempDir(), Monitor: obs.Monitor, Lab: obs.Lab, Reviews: obs.Reviews})
	if err != nil {
		t.Fatal(err)
	}
	r := out.Run.Results[0]
	if r.APIServer == nil {
		t.Fatal("the run counted no reviews")
	}
	var tr int64
	for _, c := range r.APIServer.Callers {
		if strings.HasSuffix(c.Caller, ":"+stacks.KubeAuthProxyOAuth) {
			tr += c.TokenReviews
		}
	}
	rate := float64(tr) / r.DurationS
	t.Logf("%d requests in %.1f s (%.1f req/s, P50 %.0f ms); kube-auth-proxy: %d TokenReviews, %.1f/s", r.Requests, r.DurationS, r.ThroughputRPS, r.Latency.P50, tr, rate)
	return rate, out.Run.Findings
}

func hasFinding(fs []results.Finding, kind, component string) (results.Finding, bool) {
	for _, f := range fs {
		if f.Kind == kind && f.Component == component {
			return f, true
		}
	}
	return results.Finding{}, false
}

// One token at 200 req/s: kube-auth-proxy's client-go default (5 QPS,
// burst 10) lets through about 5-10 uncached reviews a second, and the
// finding names the limit and the flag. With --authz-api-qps raised, in a
// lab of its own, the cap lifts.
func TestRateCap(t *testing.T) {
	testenv.NeedLab(t, labErr)
	rate, fs := capRun(t, labDir)
	if rate < 4 || rate > 12 {
		t.Errorf("kube-auth-proxy made %.1f TokenReviews/s at 200 req/s: want 5-10 (client-go's 5 QPS, burst 10)", rate)
	}
	f, ok := hasFinding(fs, analyze.KindClientRateLimit, stacks.KubeAuthProxyOAuth)
	if !ok || !strings.Contains(f.Evidence, "5 QPS, burst 10") || !strings.Contains(f.Advice, "--authz-api-qps") {
		t.Errorf("no finding naming kube-auth-proxy's rate limit and its flag: %+v", fs)
	}

	// The lifted lab runs alone: the default one goes down first.
	_ = lab.Open(labDir, processes.Platform{}).Down(t.Context(), io.Discard)
	dir := t.TempDir()
	st, err := up(dir, lab.Config{Stacks: []string{stacks.Stack3xOAuth}, AuthzAPIQPS: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Open(dir, processes.Platform{}).Down(context.Background(), io.Discard)
	if client, err = labClient(st.CACert); err != nil {
		t.Fatal(err)
	}
	c, _ := st.Component(stacks.KubeAuthProxyOAuth)
	if c.Standin == nil || c.Standin.APIQPS != 1000 || len(c.Standin.WhatIf) == 0 {
		t.Errorf("lab state records the stand-in as %+v, want 1000 QPS from --authz-api-qps", c.Standin)
	}
	lifted, fs := capRun(t, dir)
	if lifted < 5*rate || lifted < 50 {
		t.Errorf("with --authz-api-qps=1000: %.1f TokenReviews/s, want far above the default's %.1f", lifted, rate)
	}
	if f, ok := hasFinding(fs, analyze.KindClientRateLimit, stacks.KubeAuthProxyOAuth); ok {
		t.Errorf("the lifted lab still reports a rate limit: %s", f.Evidence)
	}
}
