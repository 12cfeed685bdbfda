package report

import (
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Secrets planted in the fxRuns' in-memory plans; no output may hold them.
const (
	secretBearer  = "tok_9f8e7d6c5b4a39281716151413121110"
	secretAPIKey  = "key_live_0123456789abcdefABCDEF"
	secretLiteral = "lit_ZYXWVUTSRQPONMLKJIHGFEDCBA987"
	secretQuery   = "qs_secret_5a5a5a5a5a5a5a5a5a"
)

var plantedSecrets = []string{secretBearer, secretAPIKey, secretLiteral, secretQuery}

var fxT0 = time.Date(2025, 11, 18, 14, 3, 5, 0, time.UTC)

func fxPtr[T any](v T) *T { return &v }

// fxSecretHeaders are what a user might pass with -H.
func fxSecretHeaders() []plan.Header {
	return []plan.Header{
		{Name: "Authorization", Value: "Bearer " + secretBearer},
		{Name: "X-Api-Key", Value: secretAPIKey},
		{Name: "Accept", Value: "application/json"},
	}
}

// lat builds a latency summary around a median, with a plausible tail.
func fxLatency(p50, p95, p99 float64) results.Latency {
	return results.Latency{
		Min: p50 * 0.2, Mean: p50 * 1.03, Stddev: (p95 - p50) / 2,
		P50: p50, P75: p50 * 1.08, P90: p50 + (p95-p50)*0.7, P95: p95,
		P99: p99, P999: p99 * 1.3, P9999: p99 * 1.6, Max: p99 * 2.1,
	}
}

func fxPhases(wait float64) results.Phases {
	return results.Phases{
		DNS:     results.Phase{Mean: 0.08, Min: 0.02, Max: 0.3, Count: 50},
		Connect: results.Phase{Mean: 0.21, Min: 0.09, Max: 1.4, Count: 50},
		TLS:     results.Phase{Mean: 3.2, Min: 2.1, Max: 9.7, Count: 50},
		Write:   results.Phase{Mean: 0.02, Min: 0.004, Max: 0.9, Count: 10000},
		Wait:    results.Phase{Mean: wait, Min: wait * 0.3, Max: wait * 4, Count: 10000},
		Read:    results.Phase{Mean: 0.05, Min: 0.01, Max: 1.1, Count: 10000},
	}
}

func fxEnv(targets ...results.TargetFingerprint) results.Environment {
	return results.Environment{Host: "bench-01", OS: "linux", Arch: "amd64", CPUs: 8, GoVersion: "go1.26.8", Targets: targets}
}

// fxClosedRun is a closed-loop, three-iteration run against a lab stack,
// with HTTP and transport errors, resources, findings and SLOs.
func fxClosedRun() *results.Run {
	tgt := plan.Target{
		Name: "echo-2x", URL: "https://127.0.0.1:8443/echo?access_token=" + secretQuery, Method: "GET",
		Headers: fxSecretHeaders(), Token: &auth.Spec{Static: true, Literal: secretLiteral},
		Layers: []string{"route", "oauth-proxy", "http-echo"},
	}
	res := func(i int, p50, p95, p99, rps float64, ok int64, status map[string]int64, errs map[string]int64, samples map[string]string) results.Result {
		start := fxT0.Add(time.Duration(i-1) * 11 * time.Second)
		return results.Result{
			Target: "echo-2x", Iteration: i, Model: plan.Closed, Start: start, End: start.Add(9576 * time.Millisecond),
			Requests: 10000, Successes: ok, SuccessRate: float64(ok) / 10000, ThroughputRPS: rps, DurationS: 10000 / rps,
			Latency: fxLatency(p50, p95, p99), Status: status, Errors: errs, ErrorSamples: samples, Phases: fxPhases(p50 * 0.9),
			HistogramFile: "echo-2x-" + string(rune('0'+i)) + ".hlog",
			Components: []results.ComponentUsage{
				{Name: "oauth-proxy", Role: "auth-proxy", Source: "local", CPUIdle: 0.00012, CPUMean: 0.0085 + 0.011*float64(i-1),
					CPUPeak: 0.0499, CPUSecondsPer1k: 0.41 + 0.01*float64(i), MemStart: 37.8e6, MemMean: 45.4e6 + 0.5e6*float64(i-1),
					MemPeak: 46.5e6, CPULimit: 0.05, ThrottledRatio: 0.31 + 0.05*float64(i), ThrottledSeconds: 2.4,
					Periods: 96, ThrottledPeriods: int64(30 + 5*i)},
				{Name: "http-echo", Role: "backend", Source: "local", CPUIdle: 0.000004, CPUMean: 0.0082, CPUPeak: 0.011,
					CPUSecondsPer1k: 0.079, RPSPerCore: 127000, MemStart: 10.5e6, MemMean: 10.8e6, MemPeak: 10.9e6},
			},
		}
	}
	return &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "v0.3.0", Name: "oauth-2x", ID: "20251118-140305-oauth-2x",
		Start: fxT0, End: fxT0.Add(32*time.Second + 700*time.Millisecond),
		CommandLine: []string{"authbench", "run", "-f", "oauth-2x.yaml", "--token", secretLiteral},
		Plan: plan.Plan{
			Name: "oauth-2x", Source: "scenarios/oauth-2x.yaml", Targets: []plan.Target{tgt},
			Load:   plan.Load{Requests: 10000, Concurrency: 50, Iterations: 3, WarmupRequests: 500},
			Client: plan.Client{Timeout: plan.Duration(20 * time.Second)},
		},
		Environment: fxEnv(results.TargetFingerprint{Target: "echo-2x", URL: tgt.URL, Status: 200, Server: "nginx/1.22.1",
			BodySHA256: "3f2a9c1b7d4e5f60718293a4b5c6d7e8f9011223344556677889900aabbccdd"}),
		Results: []results.Result{
			res(1, 45.5, 55.3, 64.4, 1044.2, 10000, map[string]int64{"200": 10000}, nil, nil),
			res(2, 46.0, 58.1, 71.9, 1021.7, 9985, map[string]int64{"200": 9985, "403": 12},
				map[string]int64{"timeout": 3}, map[string]string{"timeout": `Get "https://127.0.0.1:8443/echo": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`}),
			res(3, 46.6, 55.9, 65.4, 1018.0, 9999, map[string]int64{"200": 9999},
				map[string]int64{"refused": 1}, map[string]string{"refused": "dial tcp 127.0.0.1:8443: connect: connection refused"}),
		},
		Findings: []results.Finding{
			{Kind: "closed-loop-saturation", Severity: "info", Target: "echo-2x",
				Evidence: "mean latency 47.4 ms ≈ 50 workers / 1028.0 req/s = 48.6 ms", Advice: "Compare throughput, or rerun with --rate for service latency."},
			{Kind: "cpu-throttling", Severity: "critical", Target: "echo-2x", Component: "oauth-proxy",
				Evidence: "throttled in 46% of CFS periods at a 0.05-core limit while mean CPU was 0.0195 cores",
				Advice:   "Raise or remove the CPU limit of oauth-proxy; averages hide throttling."},
		},
		SLO: []results.SLOCheck{
			{Target: "echo-2x", Objective: "p95", Limit: 100, Measured: 56.4, Unit: "ms", Pass: true},
			{Target: "echo-2x", Objective: "success_rate", Limit: 0.9999, Measured: 0.99947, Unit: "", Pass: false},
			{Target: "echo-2x", Objective: "throughput", Limit: 1000, Measured: 1028.0, Unit: "req/s", Pass: true},
		},
		Lab: &results.Lab{
			Dir: "/home/u/.cache/authbench/lab", Stacks: []string{"oauth-2x"},
			Components: []results.LabComponent{
				{Name: "haproxy", Role: "route", Version: "2.6.12", URL: "https://127.0.0.1:8443"},
				{Name: "oauth-proxy", Role: "auth-proxy", Version: "v7.8.1", URL: "http://127.0.0.1:4180", Limit: "cpu 50m"},
				{Name: "http-echo", Role: "backend", Version: "v1.0.0", URL: "http://127.0.0.1:5678"},
			},
			Notes: []string{"oauth2-proxy v7.8.1 plays openshift oauth-proxy, which does not build from the module mirror."},
		},
		Files: []string{"run.json", "timeline.json", "summary.md", "echo-2x-1.hlog", "echo-2x-2.hlog", "echo-2x-3.hlog"},
	}
}

// fxOpenRun is an open-loop run that fell behind its schedule.
func fxOpenRun() *results.Run {
	res := func(i int, achieved float64, late int64, p99c, p99u float64) results.Result {
		start := fxT0.Add(time.Duration(i-1) * 12 * time.Second)
		l := fxLatency(2.1, 8.4, p99c)
		u := fxLatency(1.9, 6.2, p99u)
		n := int64(achieved * 10)
		return results.Result{
			Target: "api", Iteration: i, Model: plan.Open, Start: start, End: start.Add(10 * time.Second),
			Requests: n, Successes: n, SuccessRate: 1, ThroughputRPS: achieved, DurationS: 10,
			Latency: l, LatencyUncorrected: &u, TargetRPS: 500, AchievedRPS: fxPtr(achieved), LateSends: fxPtr(late),
			Status: map[string]int64{"200": n}, Phases: fxPhases(1.8),
		}
	}
	return &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "v0.3.0", Name: "api-open", ID: "20251118-140305-api-open",
		Start: fxT0, End: fxT0.Add(22 * time.Second),
		Plan: plan.Plan{
			Name: "api-open",
			Targets: []plan.Target{{Name: "api", URL: "http://127.0.0.1:8080/v1/models", Method: "GET",
				Headers: fxSecretHeaders(), Token: &auth.Spec{Env: "API_TOKEN"}, Layers: []string{"gateway", "kube-auth-proxy", "http-echo"}}},
			Load:   plan.Load{Duration: plan.Duration(10 * time.Second), Rate: 500, Concurrency: 100, Iterations: 2, Delay: plan.Duration(2 * time.Second)},
			Client: plan.Client{Timeout: plan.Duration(5 * time.Second), HTTP2: true},
		},
		Environment: fxEnv(results.TargetFingerprint{Target: "api", URL: "http://127.0.0.1:8080/v1/models", Status: 200,
			Server: "nginx/1.22.1", BodySHA256: "aa11bb22cc33dd44ee55ff66"}),
		Results: []results.Result{res(1, 499.8, 3, 14.2, 11.8), res(2, 462.5, 1875, 2310, 97.3)},
		Lab: &results.Lab{Components: []results.LabComponent{
			{Name: "nginx", Role: "gateway", Version: "1.22.1"},
			{Name: "oauth2-proxy", Role: "kube-auth-proxy", Version: "v7.8.1"},
		}, Notes: []string{"nginx auth_request stands in for Envoy ext_authz: no Envoy binary is available."}},
		Files: []string{"run.json", "summary.md"},
	}
}

// fxFailedRun is a run where nothing succeeded: every request was refused in
// the first iteration and none completed in the second.
func fxFailedRun() *results.Run {
	return &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "v0.3.0", Name: "down", ID: "20251118-140305-down",
		Start: fxT0, End: fxT0.Add(3 * time.Second),
		Plan: plan.Plan{
			Name:    "down",
			Targets: []plan.Target{{Name: "127.0.0.1:1", URL: "http://127.0.0.1:1/", Method: "GET", Headers: fxSecretHeaders()}},
			Load:    plan.Load{Requests: 200, Concurrency: 50, Iterations: 2},
			Client:  plan.Client{Timeout: plan.Duration(time.Second), DisableKeepAlive: true},
		},
		Environment: fxEnv(results.TargetFingerprint{Target: "127.0.0.1:1", URL: "http://127.0.0.1:1/",
			Error: "dial tcp 127.0.0.1:1: connect: connection refused"}),
		Results: []results.Result{
			{Target: "127.0.0.1:1", Iteration: 1, Model: plan.Closed, Start: fxT0, End: fxT0.Add(40 * time.Millisecond),
				Requests: 200, DurationS: 0.04, ThroughputRPS: 5000, Status: map[string]int64{},
				Errors:       map[string]int64{"refused": 200},
				ErrorSamples: map[string]string{"refused": "dial tcp 127.0.0.1:1: connect: connection refused (Authorization: Bearer " + secretBearer + ")"}},
			{Target: "127.0.0.1:1", Iteration: 2, Model: plan.Closed, Start: fxT0.Add(time.Second), End: fxT0.Add(time.Second)},
		},
	}
}

// fxPartialRun is an interrupted two-target run: the second target finished
// one of its three iterations.
func fxPartialRun() *results.Run {
	r := fxClosedRun()
	r.Name, r.ID, r.Partial = "two-stacks", "20251118-140305-two-stacks", true
	r.Plan.Name, r.Plan.Source = "two-stacks", "scenarios/two-stacks.yaml"
	r.Plan.Targets[0].Token = &auth.Spec{File: "/run/secrets/token"}
	r.Plan.Targets = append(r.Plan.Targets, plan.Target{
		Name: "gateway-3x", URL: "https://127.0.0.1:9443/echo", Method: "POST", Headers: fxSecretHeaders(), BodyBytes: 512,
		BodyFile: "body.json", Layers: []string{"gateway", "kube-auth-proxy", "kube-rbac-proxy", "http-echo"},
		Token: &auth.Spec{OIDC: &auth.OIDC{Issuer: "https://127.0.0.1:8444/realms/lab", ClientID: "odh-client", Username: "alice", PasswordEnv: "KC_PASSWORD"}},
	})
	g := r.Results[0]
	g.Target, g.Iteration, g.ThroughputRPS, g.Latency = "gateway-3x", 1, 29.1, fxLatency(1601, 3140, 3970)
	g.Requests, g.Successes, g.Status = 4123, 4121, map[string]int64{"200": 4121, "503": 2}
	g.Components, g.Errors, g.ErrorSamples = nil, nil, nil
	r.Results = append(r.Results, g)
	r.Findings = append(r.Findings, results.Finding{Kind: "cross-run", Severity: "warning",
		Evidence: "targets ran on different stacks", Advice: "Compare per-request CPU, not cores."})
	r.SLO = append(r.SLO, results.SLOCheck{Target: "gateway-3x", Objective: "p95", Limit: 100, Measured: 3140, Unit: "ms"})
	r.Environment.Targets = append(r.Environment.Targets, results.TargetFingerprint{Target: "gateway-3x", URL: "https://127.0.0.1:9443/echo", Status: 401})
	return r
}

// fxImportedRun is one hey output converted: no phases for TLS, no
// environment, no start time, fewer percentiles.
func fxImportedRun() *results.Run {
	return &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "v0.3.0", Name: "hey-import",
		Imported: &results.Import{Tool: "hey", Files: []string{"oauth-2x.log"}},
		Plan: plan.Plan{
			Name:    "hey-import",
			Targets: []plan.Target{{Name: "127.0.0.1:5678", URL: "http://127.0.0.1:5678/", Headers: fxSecretHeaders()}},
			Load:    plan.Load{Requests: 20000, Concurrency: 50},
		},
		Results: []results.Result{{
			Target: "127.0.0.1:5678", Iteration: 1, Model: plan.Closed, Requests: 20000, Successes: 20000, SuccessRate: 1,
			ThroughputRPS: 9503.4526, DurationS: 2.1043,
			Latency: results.Latency{Min: 0.3, Mean: 4.9, P50: 3.2, P75: 5.1, P90: 8.8, P95: 12.4, P99: 24.7, Max: 44.3},
			Status:  map[string]int64{"200": 20000},
			Phases: results.Phases{
				Connect: results.Phase{Mean: 0.1, Min: 0.3, Max: 44.3},
				DNS:     results.Phase{},
				Write:   results.Phase{Mean: 0.02, Min: 0, Max: 0.8},
				Wait:    results.Phase{Mean: 4.8, Min: 0.2, Max: 28.7},
				Read:    results.Phase{Mean: 0.03, Min: 0, Max: 1.5},
			},
			Unavailable: []string{"stddev", "p999", "p9999", "phases.tls", "timeline", "histogram", "start"},
		}},
		Files: []string{"run.json", "summary.md"},
	}
}

// fxRuns are all runs the golden tests render.
func fxRuns() []struct {
	name string
	run  func() *results.Run
} {
	return []struct {
		name string
		run  func() *results.Run
	}{
		{"closed", fxClosedRun},
		{"open", fxOpenRun},
		{"failed", fxFailedRun},
		{"partial", fxPartialRun},
		{"imported", fxImportedRun},
	}
}
