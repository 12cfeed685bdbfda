package analyze

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

var faultT0 = time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)

// at is the wall-clock time s seconds into the fault test run.
func at(s float64) time.Time { return faultT0.Add(time.Duration(s * float64(time.Second))) }

// faultRun is one iteration of target "3x" lasting n seconds, 100 requests
// a second, whose second i has the P50 and errors sec gives it; the run
// counted 1 TokenReview and 1 SAR per request by each of two proxies.
func faultRun(n int, sec func(i int) (p50 float64, errors, auth int64), faults ...results.FaultEvent) (*results.Run, *results.Timeline) {
	const perSecond = 100
	var pts []results.Point
	var errs, auth int64
	for i := range n {
		p50, e, a := sec(i)
		pts = append(pts, results.Point{T: float64(i), Requests: perSecond, Errors: e, AuthErrors: a, P50: p50, P99: 2 * p50})
		errs, auth = errs+e, auth+a
	}
	req := int64(n * perSecond)
	r := results.Result{Target: "3x", Iteration: 1, Start: at(0), End: at(float64(n)), Requests: req, Successes: req - errs,
		Latency: results.Latency{P50: 5, Mean: 5}, Status: map[string]int64{"200": req - errs}, Errors: map[string]int64{},
		APIServer: &results.APIServerReviews{Source: "audit", TokenReviews: 2 * req, SubjectAccessReviews: 2 * req,
			Callers: []results.CallerReviews{
				{Caller: "system:serviceaccount:authbench:kube-rbac-proxy", TokenReviews: req, SubjectAccessReviews: req},
				{Caller: "kube-auth-proxy-oauth", TokenReviews: req, SubjectAccessReviews: req},
			}}}
	if auth > 0 {
		r.Status["403"] = auth
	}
	if errs > auth {
		r.Status["503"] = errs - auth
	}
	run := &results.Run{Name: "fault", Start: at(0), End: at(float64(n)), Results: []results.Result{r}, Faults: faults,
		Lab: &results.Lab{Components: []results.LabComponent{{Name: "kube-apiserver", Role: "kube-apiserver"}, {Name: "keycloak", Role: "oidc-provider"},
			{Name: "kube-auth-proxy-oauth-3x", Role: "ext-authz", Standin: &results.Standin{Identity: "kube-auth-proxy-oauth"}}}}}
	tl := &results.Timeline{Series: []results.Series{{Target: "3x", Iteration: 1, Points: pts}}}
	return run, tl
}

func set(s float64, link string, delayMs float64, down bool, forMs float64) results.FaultEvent {
	return results.FaultEvent{At: at(s), Link: link, Action: results.FaultSet, DelayMs: delayMs, Down: down, ForMs: forMs}
}

func clear(s float64, link string) results.FaultEvent {
	return results.FaultEvent{At: at(s), Link: link, Action: results.FaultClear}
}

// between is a second function: inside [from, to) the fault's figures,
// outside them the calm ones.
func between(from, to int, calm, inFault float64, errsIn int64) func(int) (float64, int64, int64) {
	return func(i int) (float64, int64, int64) {
		if i >= from && i < to {
			return inFault, errsIn, 0
		}
		return calm, 0, 0
	}
}

func findingsOf(fs []results.Finding, kind string) []results.Finding {
	var out []results.Finding
	for _, f := range fs {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func TestSlowAPIServerFindings(t *testing.T) {
	const delay = 200.0
	tests := []struct {
		name     string
		sec      func(int) (float64, int64, int64)
		faults   []results.FaultEvent
		noReview bool
		want     int
		evidence []string
		rise     float64 // want observed_rise_ms; NaN: none
	}{
		{"delay inside the run", between(10, 20, 5, 5+4*delay, 0),
			[]results.FaultEvent{set(10, results.LinkAPIServer, delay, false, 0), clear(20, results.LinkAPIServer)}, false, 1,
			[]string{"kube-apiserver", "kube-rbac-proxy 1 TokenReviews + 1 SubjectAccessReviews", "kube-auth-proxy-oauth-3x", "expected to pay 800 ms more", "from 5 ms before the fault to 805 ms", "100% of the expected"}, 4 * delay},
		{"fault before the run, never cleared", between(0, 30, 5, 5+4*delay, 0),
			[]results.FaultEvent{set(-5, results.LinkAPIServer, delay, false, 0)}, false, 1,
			[]string{"5 s before the run began", "until the run ended", "no second of this target ran without a fault"}, math.NaN()},
		{"expires by itself", between(10, 15, 5, 5+4*delay, 0),
			[]results.FaultEvent{set(10, results.LinkAPIServer, delay, false, 5000), clear(15, results.LinkAPIServer)}, false, 1,
			[]string{"for 5 s", "+800 ms"}, 4 * delay},
		{"the seconds after it are not the baseline", func(i int) (float64, int64, int64) {
			switch {
			case i < 10:
				return 5, 0, 0
			case i < 20:
				return 5 + 4*delay, 0, 0
			}
			return 300, 0, 0
		}, []results.FaultEvent{set(10, results.LinkAPIServer, delay, false, 0), clear(20, results.LinkAPIServer)}, false, 1,
			[]string{"from 5 ms before the fault"}, 4 * delay},
		{"set in the first second: the seconds after it are", between(0, 10, 5, 5+4*delay, 0),
			[]results.FaultEvent{set(0.5, results.LinkAPIServer, delay, false, 0), clear(10, results.LinkAPIServer)}, false, 1,
			[]string{"from 5 ms without a fault"}, 4 * delay},
		{"reviews not counted", between(10, 20, 5, 5+4*delay, 0),
			[]results.FaultEvent{set(10, results.LinkAPIServer, delay, false, 0), clear(20, results.LinkAPIServer)}, true, 1,
			[]string{"did not count the API server's reviews"}, 4 * delay},
		{"down is not a delay", between(10, 20, 5, 5, 100),
			[]results.FaultEvent{set(10, results.LinkAPIServer, 0, true, 0), clear(20, results.LinkAPIServer)}, false, 0, nil, 0},
		{"keycloak delay is not the API server's", between(10, 20, 5, 5, 0),
			[]results.FaultEvent{set(10, results.LinkKeycloak, delay, false, 0), clear(20, results.LinkKeycloak)}, false, 0, nil, 0},
		{"fault after the run", between(0, 0, 5, 5, 0),
			[]results.FaultEvent{set(40, results.LinkAPIServer, delay, false, 0)}, false, 0, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, tl := faultRun(30, tt.sec, tt.faults...)
			if tt.noReview {
				run.Results[0].APIServer = nil
			}
			fs := findingsOf(Diagnose(run, tl), KindFaultSlowAPIServer)
			if len(fs) != tt.want {
				t.Fatalf("got %d %s findings, want %d: %+v", len(fs), KindFaultSlowAPIServer, tt.want, fs)
			}
			if tt.want == 0 {
				return
			}
			f := fs[0]
			for _, w := range tt.evidence {
				if !strings.Contains(f.Evidence, w) {
					t.Errorf("evidence lacks %q:\n%s", w, f.Evidence)
				}
			}
			got, ok := f.Values["observed_rise_ms"]
			if math.IsNaN(tt.rise) != !ok || (ok && math.Abs(got-tt.rise) > 1e-9) {
				t.Errorf("observed_rise_ms = %v (present %v), want %v", got, ok, tt.rise)
			}
			if f.Component != "kube-apiserver" {
				t.Errorf("component = %q, want the API server", f.Component)
			}
		})
	}
}

func TestDownFindings(t *testing.T) {
	tests := []struct {
		name     string
		sec      func(int) (float64, int64, int64)
		faults   []results.FaultEvent
		severity string
		values   map[string]float64
		absent   []string
		evidence []string
	}{
		{"fail-closed, recovers a second after", func(i int) (float64, int64, int64) {
			switch {
			case i >= 10 && i < 15:
				return 5, 100, 0
			case i == 15:
				return 5, 50, 0
			}
			return 5, 0, 0
		}, []results.FaultEvent{set(10, results.LinkAPIServer, 0, true, 5000), clear(15, results.LinkAPIServer)}, SeverityCritical,
			map[string]float64{"failed_in_fault": 500, "recovery_s": 1, "failed_after_fault": 50, "detect_s": 0}, nil,
			[]string{"kube-apiserver (apiserver link) was down from 10 s into the run for 5 s (apiserver down 5 s)", "failed closed: 500 of the 500", "Recovery time: 1 s", "statuses ≥ 400 at the client: 503 ×550"}},
		{"detected late, recovered at once", between(12, 15, 5, 5, 100),
			[]results.FaultEvent{set(10, results.LinkAPIServer, 0, true, 5000)}, SeverityCritical,
			map[string]float64{"failed_in_fault": 300, "recovery_s": 0, "detect_s": 2}, nil,
			[]string{"first failures came 2 s after"}},
		{"never cleared", between(10, 30, 5, 5, 100),
			[]results.FaultEvent{set(10, results.LinkAPIServer, 0, true, 0)}, SeverityCritical,
			map[string]float64{"failed_in_fault": 2000}, []string{"recovery_s"},
			[]string{"until the run ended", "still down when the run ended"}},
		{"never recovered", between(10, 30, 5, 5, 100),
			[]results.FaultEvent{set(10, results.LinkAPIServer, 0, true, 0), clear(15, results.LinkAPIServer)}, SeverityCritical,
			map[string]float64{"failed_in_fault": 500, "failed_after_fault": 1500}, []string{"recovery_s"},
			[]string{"did not recover within the run", "for the 15 s the run went on"}},
		{"no errors at all: served from cache", between(0, 0, 5, 5, 0),
			[]results.FaultEvent{set(10, results.LinkAPIServer, 0, true, 5000)}, SeverityInfo,
			map[string]float64{"failed_in_fault": 0, "recovery_s": 0}, nil,
			[]string{"answered from its caches, or never asks it", "Nothing had to recover"}},
		{"down before the run began", between(0, 3, 5, 5, 100),
			[]results.FaultEvent{set(-2, results.LinkAPIServer, 0, true, 5000)}, SeverityCritical,
			map[string]float64{"failed_in_fault": 300, "recovery_s": 0, "error_rate_before": 0}, nil,
			[]string{"2 s before the run began"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, tl := faultRun(30, tt.sec, tt.faults...)
			fs := findingsOf(Diagnose(run, tl), KindFaultDown)
			if len(fs) != 1 {
				t.Fatalf("got %d %s findings, want 1: %+v", len(fs), KindFaultDown, fs)
			}
			f := fs[0]
			if f.Severity != tt.severity {
				t.Errorf("severity = %s, want %s", f.Severity, tt.severity)
			}
			for k, want := range tt.values {
				if got, ok := f.Values[k]; !ok || math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
				}
			}
			for _, k := range tt.absent {
				if _, ok := f.Values[k]; ok {
					t.Errorf("%s is set, want none", k)
				}
			}
			for _, w := range tt.evidence {
				if !strings.Contains(f.Evidence, w) {
					t.Errorf("evidence lacks %q:\n%s", w, f.Evidence)
				}
			}
		})
	}
}

func TestDownLayers(t *testing.T) {
	run, tl := faultRun(30, between(10, 15, 5, 5, 100), set(10, results.LinkAPIServer, 0, true, 5000))
	r := &run.Results[0]
	r.Status = map[string]int64{"200": 2500, "403": 500}
	r.Answers = map[string]int64{answerAuthzDenied: 500}
	r.Gateway = &results.Gateway{Kind: results.GatewayEnvoy, Component: "gateway-3x", ExtAuthz: &results.ExtAuthzCounts{Denied: 500}}
	r.Errors = map[string]int64{"reset": 3}
	fs := findingsOf(Diagnose(run, tl), KindFaultDown)
	if len(fs) != 1 {
		t.Fatalf("got %d findings, want 1", len(fs))
	}
	for _, w := range []string{"the gateway (gateway-3x) counted 0 failed ext_authz calls", "and 500 denials by the ext_authz service",
		"passed on 500 denials", "403 ×500", "transport errors: reset ×3"} {
		if !strings.Contains(fs[0].Evidence, w) {
			t.Errorf("evidence lacks %q:\n%s", w, fs[0].Evidence)
		}
	}
}

// A target whose tokens are not Keycloak's gets the down finding only.
func TestKeycloakDownStaticTokens(t *testing.T) {
	run, tl := faultRun(30, between(0, 0, 5, 5, 0), set(10, results.LinkKeycloak, 0, true, 5000))
	run.Plan.Targets = []plan.Target{{Name: "3x", Token: &auth.Spec{Pool: &auth.Pool{File: "pool"}}}}
	all := Diagnose(run, tl)
	if n, m := len(findingsOf(all, KindFaultKeycloakDown)), len(findingsOf(all, KindFaultDown)); n != 0 || m != 1 {
		t.Errorf("got %d keycloak and %d down findings for a target with pool tokens, want 0 and 1", n, m)
	}
}

func TestKeycloakDownFindings(t *testing.T) {
	authIn := func(i int) (float64, int64, int64) {
		if i >= 10 && i < 15 {
			return 5, 40, 40
		}
		return 5, 0, 0
	}
	tests := []struct {
		name         string
		sec          func(int) (float64, int64, int64)
		tokenErrors  int64
		severity     string
		evidence     []string
		wantAuthErrs float64
	}{
		{"cached keys: no errors", between(0, 0, 5, 5, 0), 0, SeverityInfo,
			[]string{"While keycloak was down (keycloak down 5 s", "signing keys it had cached (JWKS", "needed nothing from it"}, 0},
		{"keys not cached: 401/403", authIn, 0, SeverityWarning,
			[]string{"200 requests were refused with 401 or 403"}, 200},
		{"token refresh failed", between(10, 15, 5, 5, 20), 100, SeverityWarning,
			[]string{"could not get or refresh a token 100 times", "none with 401 or 403"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, tl := faultRun(30, tt.sec, set(10, results.LinkKeycloak, 0, true, 5000), clear(15, results.LinkKeycloak))
			if tt.tokenErrors > 0 {
				run.Results[0].Errors[classAuthToken] = tt.tokenErrors
			}
			all := Diagnose(run, tl)
			fs := findingsOf(all, KindFaultKeycloakDown)
			if len(fs) != 1 || len(findingsOf(all, KindFaultDown)) != 1 {
				t.Fatalf("got %d keycloak and %d down findings, want 1 each", len(fs), len(findingsOf(all, KindFaultDown)))
			}
			f := fs[0]
			if f.Severity != tt.severity || f.Component != "keycloak" || f.Values["auth_errors_in_fault"] != tt.wantAuthErrs {
				t.Errorf("severity %s, component %s, auth errors %v; want %s, keycloak, %v", f.Severity, f.Component, f.Values["auth_errors_in_fault"], tt.severity, tt.wantAuthErrs)
			}
			for _, w := range tt.evidence {
				if !strings.Contains(f.Evidence, w) {
					t.Errorf("evidence lacks %q:\n%s", w, f.Evidence)
				}
			}
		})
	}
}

func TestFaultSpans(t *testing.T) {
	tests := []struct {
		name   string
		faults []results.FaultEvent
		want   []string // "link from-to open ended"
	}{
		{"set and clear", []results.FaultEvent{set(1, "apiserver", 200, false, 0), clear(4, "apiserver")}, []string{"apiserver 1-4 false cleared"}},
		{"expired: ends when its clear is logged", []results.FaultEvent{set(1, "keycloak", 0, true, 2000), clear(3.5, "keycloak")}, []string{"keycloak 1-3.5 false expired"}},
		{"cleared before its expiry", []results.FaultEvent{set(1, "keycloak", 0, true, 2000), clear(2, "keycloak")}, []string{"keycloak 1-2 false cleared"}},
		{"expired, no clear logged: a much later event is not its end", []results.FaultEvent{set(1, "keycloak", 0, true, 2000), set(25, "keycloak", 10, false, 0)},
			[]string{"keycloak 1-3 false expired", "keycloak 25-30 true in force"}},
		{"replaced by the next set", []results.FaultEvent{set(1, "apiserver", 200, false, 0), set(5, "apiserver", 50, false, 0), clear(8, "apiserver")},
			[]string{"apiserver 1-5 false replaced", "apiserver 5-8 false cleared"}},
		{"other links do not end it", []results.FaultEvent{set(1, "client", 45, false, 0), clear(2, "apiserver")}, []string{"client 1-30 true in force"}},
		{"outlasts the run", []results.FaultEvent{set(20, "keycloak", 0, true, 60000)}, []string{"keycloak 20-30 true in force"}},
		{"after the run", []results.FaultEvent{set(31, "keycloak", 0, true, 0)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &results.Run{Start: at(0), End: at(30), Faults: tt.faults}
			var got []string
			for _, sp := range FaultSpans(run) {
				got = append(got, sp.Fault.Link+" "+num(sp.From.Sub(faultT0).Seconds())+"-"+num(sp.To.Sub(faultT0).Seconds())+" "+map[bool]string{true: "true", false: "false"}[sp.Open]+" "+sp.Ended)
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("spans = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFaultLabel(t *testing.T) {
	tests := []struct {
		ev   results.FaultEvent
		want string
	}{
		{results.FaultEvent{Link: "apiserver", Action: "set", DelayMs: 200}, "apiserver +200 ms"},
		{results.FaultEvent{Link: "keycloak", Action: "set", Down: true, ForMs: 5000}, "keycloak down 5 s"},
		{results.FaultEvent{Link: "keycloak", Action: "set", Down: true}, "keycloak down"},
		{results.FaultEvent{Link: "client", Action: "set", DelayMs: 45, JitterMs: 5, ForMs: 500}, "client +45 ms ±5 ms for 500 ms"},
		{results.FaultEvent{Link: "client", Action: "set", BandwidthKBps: 100}, "client 100 KB/s"},
		{results.FaultEvent{Link: "apiserver", Action: "clear"}, "apiserver cleared"},
	}
	for _, tt := range tests {
		if got := FaultLabel(tt.ev); got != tt.want {
			t.Errorf("FaultLabel(%+v) = %q, want %q", tt.ev, got, tt.want)
		}
	}
}
