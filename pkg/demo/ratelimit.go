package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/stacks"
)

// The 3x-oauth run of step 3: pool tokens (each a first use) at a rate
// well above what kube-auth-proxy's client-side rate limit lets through,
// long enough for the bucket's burst to be spent.
const (
	rateLimitRPS      = 50
	rateLimitDuration = 4 * time.Second
	// demoTokenPool is the pool the demo's lab issues when it runs
	// 3x-oauth: more tokens than the run sends.
	demoTokenPool = 1000
)

// RateLimitStep is 3x-oauth with pool tokens: the ext_authz service's
// client-side rate limit, and the finding that names it.
type RateLimitStep struct {
	Target string
	Rate   float64
	Run    *runner.Outcome
	// Finding is the client-rate-limit finding on kube-auth-proxy (nil
	// when none was raised).
	Finding *results.Finding
}

// splitRateLimited takes 3x-oauth out of the steps that compare stacks:
// its ext_authz service, as the real kube-auth-proxy, is capped at a few
// requests a second by its API client's rate limit, so those steps would
// measure the cap for minutes. Step 3 shows the cap instead. A demo of
// 3x-oauth alone keeps it everywhere.
func (d *demo) splitRateLimited() {
	var keep []plan.Target
	for _, t := range d.base.Targets {
		if d.stackOf[t.Name] == stacks.Stack3xOAuth && len(d.base.Targets) > 1 {
			t := t
			d.oauth = &t
			continue
		}
		keep = append(keep, t)
	}
	if d.oauth != nil {
		fmt.Fprintf(d.o.Log, "==> %s runs in step 3 only: its kube-auth-proxy's client-side rate limit caps it at a few req/s\n", d.oauth.Name)
	}
	d.base.Targets = keep
}

// rateLimit runs 3x-oauth with the lab's pool tokens and says what its
// rate limit let through and what the finding names.
func (d *demo) rateLimit(ctx context.Context) ([]string, error) {
	if d.oauth == nil {
		return nil, nil
	}
	l := plan.Load{Rate: rateLimitRPS, Duration: plan.Duration(rateLimitDuration), Iterations: 1, Concurrency: d.o.Concurrency}
	r, err := d.run(ctx, d.subPlan("rate-limit", []plan.Target{*d.oauth}, l))
	st := &RateLimitStep{Target: d.oauth.Name, Rate: rateLimitRPS, Run: r}
	d.out.RateLimit = st
	if r == nil {
		return nil, err
	}
	if fs := findingsOf(r.Run, analyze.KindClientRateLimit, stacks.KubeAuthProxyOAuth); len(fs) > 0 {
		st.Finding = &fs[0]
	}
	return []string{rateLimitLine(st)}, err
}

// rateLimitLine: what 3x-oauth served at the rate, and the finding.
func rateLimitLine(st *RateLimitStep) string {
	line := fmt.Sprintf("%s with pool tokens at %s req/s (kube-auth-proxy as the real one, TokenReview mode): ", st.Target, rps(st.Rate))
	if st.Run != nil && len(st.Run.Run.Results) > 0 {
		r := st.Run.Run.Results[0]
		line += fmt.Sprintf("%s req/s served, P50 %s; ", rps(r.ThroughputRPS), ms(r.Latency.P50))
	}
	f := st.Finding
	if f == nil {
		return line + "no client-rate-limit finding."
	}
	return line + fmt.Sprintf("finding %s: %s makes %s API call per request against a client-side limit of %s QPS, burst %s: a cap of %s uncached req/s per replica (`lab up --authz-api-qps N` lifts it).",
		f.Kind, f.Component, rps(f.Values["api_calls_per_request"]), rps(f.Values["api_qps"]), rps(f.Values["api_burst"]), rps(f.Values["cap_rps"]))
}
