//go:build integration

// Sampling and diagnosis checked against the real lab: runner.Run drives load
// through the 3x stack (nginx -> oauth2-proxy as ext_authz -> kube-rbac-proxy
// -> http-echo, Keycloak tokens) and the findings, resources and token
// handling in run.json are checked against what the lab really did.
package runner_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
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
	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/stacks"
	"github.com/authbench/authbench/pkg/store"
)

// tokenLifespan is the lab's Keycloak access-token lifetime: short, so
// that a run outlives a token (refresh) and a token expires (401) within
// seconds. Keycloak takes any whole number of seconds; the refresher renews
// at half the lifetime at the earliest, so 20s means a renewal every 10s.
const tokenLifespan = 20 * time.Second

// authzTimeout is the lab gateways' ext_authz timeout: shorter than the
// gateway's 5 s default, so that a throttled ext_authz service outlives
// it within a short run, yet far above the calls of the unthrottled
// stack and of the 50m limit at the other tests' concurrency.
const authzTimeout = 2 * time.Second

// labTools are the programs a lab with both stacks runs.
var labTools = []string{"etcd", "kube-apiserver", "keycloak", "java", "http-echo", "kube-rbac-proxy",
	"oauth2-proxy", "envoy", "haproxy"}

// One lab for the whole test binary.
var (
	labDir   string
	labState *lab.State
	labErr   error // the lab failed to start, or its tools are missing (skip)
	runsDir  string
	// expired is alice's access token, obtained right after the lab
	// started and never sent anywhere while valid, so no cache has seen it.
	expired       string
	expiredExpiry time.Time
	expiredErr    error
)

func TestMain(m *testing.M) {
	// lab.Up starts this test binary as the lab's supervisor.
	processes.ServeIfAsked()
	flag.Parse()
	os.Exit(runWithLab(m))
}

func runWithLab(m *testing.M) int {
	if _, labErr = testenv.FindTools(toolcache.ToolPath, "`make lab` installs it", labTools...); labErr != nil {
		return m.Run()
	}
	var err error
	if runsDir, err = os.MkdirTemp("", "authbench-runner-integration-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(runsDir)
	// A lasting dir keeps Keycloak's database (its schema takes a minute
	// to create on 2 cores) from one run of the tests to the next.
	labDir = filepath.Join(toolcache.CacheDir(), "lab-runner-integration")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t0 := time.Now()
	_ = lab.Open(labDir, processes.Platform{}).Down(ctx, io.Discard) // a lab left by an interrupted earlier run
	labState, labErr = lab.Open(labDir, processes.Platform{}).Up(ctx, lab.UpOptions{Out: os.Stderr,
		Supervisor: []string{os.Args[0], "-test.run=^$"},
		Config:     lab.Config{AccessTokenLifespan: tokenLifespan, AuthzTimeout: authzTimeout}})
	cancel()
	if labErr == nil {
		fmt.Fprintf(os.Stderr, "lab up in %.1fs\n", time.Since(t0).Seconds())
		expired, expiredExpiry, expiredErr = aliceToken()
	}
	code := m.Run()
	if err := lab.Open(labDir, processes.Platform{}).Down(context.Background(), os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "lab down:", err)
		code = 1
	}
	return code
}

func needLab(t *testing.T) *lab.State {
	t.Helper()
	testenv.NeedLab(t, labErr)
	return labState
}

// labPlan is the lab's own scenario (`authbench lab scenario`) cut down to
// its 3x target, with the given load.
func labPlan(t *testing.T, name string, l plan.Load) *plan.Plan {
	t.Helper()
	needLab(t)
	b, err := lab.Open(labDir, processes.Platform{}).Scenario(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse("lab-scenario.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	var keep []plan.Target
	for _, tg := range p.Targets {
		if tg.Name == stacks.Target3x {
			keep = append(keep, tg)
		}
	}
	if len(keep) != 1 {
		t.Fatalf("lab scenario has no %s target:\n%s", stacks.Target3x, b)
	}
	if keep[0].Token == nil || keep[0].Token.OIDC == nil {
		t.Fatalf("the 3x target's token source is not oidc: %+v", keep[0].Token)
	}
	p.Name, p.Targets, p.Load = name, keep, l
	return p
}

// closedLoad is a few seconds of closed-loop load at a concurrency that
// keeps the 3x stack busy on 2 cores.
func closedLoad() plan.Load {
	return plan.Load{Concurrency: 16, Duration: plan.Duration(4 * time.Second), Iterations: 1,
		WarmupDuration: plan.Duration(time.Second)}
}

// runLab runs p against the lab as `authbench run` does with a lab target
// (the lab's components sampled, the lab recorded) and returns run.json as
// written, and the run directory.
func runLab(t *testing.T, p *plan.Plan) (*results.Run, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the token source's refresher
	comps, rec, err := sampling.LabComponents(context.Background(), labDir, p, true, processes.Platform{})
	if err != nil {
		t.Fatal(err)
	}
	mon, err := sampling.NewMonitor(ctx, p, comps)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runner.Run(ctx, runner.Options{Plan: p, Out: runsDir, Monitor: mon, Lab: rec,
		Gateways: sampling.LabGateways(ctx, labDir, processes.Platform{}), Log: testLog{t}, CommandLine: []string{"authbench", "run", "-f", "lab-scenario.yaml"}})
	if err != nil {
		t.Fatalf("run %s: %v", p.Name, err)
	}
	run, err := store.Read(filepath.Join(out.Dir, results.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Results {
		t.Logf("%s iteration %d: %s, %d requests, %.0f req/s, mean %.1f ms, p95 %.1f ms, status %v, errors %v",
			r.Target, r.Iteration, r.Model, r.Requests, r.ThroughputRPS, r.Latency.Mean, r.Latency.P95, r.Status, r.Errors)
	}
	for _, f := range run.Findings {
		t.Logf("finding %s %s %s: %s", f.Kind, f.Severity, f.Component, f.Evidence)
	}
	return run, out.Dir
}

// testLog sends the runner's messages to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func findings(run *results.Run, kind string) []results.Finding {
	var out []results.Finding
	for _, f := range run.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// usage is a component's usage in a result from one source.
func usage(r results.Result, name, source string) (results.ComponentUsage, bool) {
	for _, u := range r.Components {
		if u.Name == name && u.Source == source {
			return u, true
		}
	}
	return results.ComponentUsage{}, false
}

func throughput(run *results.Run) float64 {
	var sum float64
	for _, r := range run.Results {
		sum += r.ThroughputRPS
	}
	return sum / math.Max(1, float64(len(run.Results)))
}

// onlyStatus fails unless every response of the run had status code.
func onlyStatus(t *testing.T, run *results.Run, code string) {
	t.Helper()
	for _, r := range run.Results {
		if r.Requests == 0 || r.Status[code] != r.Requests || len(r.Errors) > 0 {
			t.Errorf("%s iteration %d: %d requests, status %v, errors %v (samples %v); want all %s",
				r.Target, r.Iteration, r.Requests, r.Status, r.Errors, r.ErrorSamples, code)
		}
	}
}

// aliceToken gets alice's access token through the 3x target's own token
// source, and its expiry from the JWT.
func aliceToken() (string, time.Time, error) {
	b, err := lab.Open(labDir, processes.Platform{}).Scenario(context.Background())
	if err != nil {
		return "", time.Time{}, err
	}
	p, err := scenario.Parse("lab-scenario.yaml", b)
	if err != nil {
		return "", time.Time{}, err
	}
	for _, tg := range p.Targets {
		if tg.Name != stacks.Target3x {
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // no refresh: this token is to expire
		ts, err := auth.New(ctx, tg.Token)
		if err != nil {
			return "", time.Time{}, err
		}
		tok, err := ts.Token(ctx)
		if err != nil {
			return "", time.Time{}, err
		}
		exp, err := jwtClaim(tok, "exp")
		return tok, time.Unix(exp, 0), err
	}
	return "", time.Time{}, fmt.Errorf("lab scenario has no %s target", stacks.Target3x)
}

// jwtClaim reads a numeric claim of a JWT, unverified (to know how long to
// wait, not whom to trust).
func jwtClaim(tok, name string) (int64, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return 0, fmt.Errorf("access token is not a JWT (%d parts)", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return 0, fmt.Errorf("decoding JWT claims: %w", err)
	}
	var claims map[string]any
	if err := json.Unmarshal(b, &claims); err != nil {
		return 0, fmt.Errorf("decoding JWT claims: %w", err)
	}
	v, ok := claims[name].(float64)
	if !ok {
		return 0, fmt.Errorf("JWT has no %s claim", name)
	}
	return int64(v), nil
}
