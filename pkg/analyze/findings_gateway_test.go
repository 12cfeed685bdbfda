package analyze

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
)

// gatewayRun is the reported 3.x run with the gateway's account: its 403s
// are the gateway's (authz timeouts), or the auth service's denials.
func gatewayRun(errors, denied int64) *results.Run {
	run := diag3xThrottled()
	for i := range run.Results {
		r := &run.Results[i]
		r.Status["403"] = errors + denied
		r.Answers = map[string]int64{}
		if errors > 0 {
			r.Answers[answerAuthzError] = errors
		}
		if denied > 0 {
			r.Answers[answerAuthzDenied] = denied
		}
		r.Components = append(r.Components, results.ComponentUsage{Name: "oauth2-proxy-3x", Role: roleExtAuthz,
			Source: "local", CPUMean: 0.05, CPUPeak: 0.05, CPULimit: 0.05, ThrottledRatio: 0.6})
		r.Gateway = &results.Gateway{Kind: results.GatewayEnvoy, Component: "gateway-3x", Requests: r.Requests,
			ExtAuthz: &results.ExtAuthzCounts{OK: r.Requests - errors - denied, Denied: denied, Error: errors + 1, Timeouts: errors}}
	}
	return run
}

func TestGatewayAuthzFindings(t *testing.T) {
	tests := []struct {
		name           string
		run            *results.Run
		want           bool
		evidence, not  []string
		wantSeverities string
	}{
		{"authz timeouts", gatewayRun(4, 0), true,
			[]string{"ext_authz error counter 25", "20 of them past the timeout", "20 gateway-authz-error", "differ by 5",
				"oauth2-proxy-3x ran under a CPU limit of 50m"}, nil, SeverityWarning},
		{"denials only", func() *results.Run {
			r := gatewayRun(0, 4)
			for i := range r.Results {
				r.Results[i].Gateway.ExtAuthz.Error = 0
			}
			return r
		}(), false, nil, nil, ""},
		{"no gateway account, classes only", func() *results.Run {
			r := gatewayRun(300, 0)
			for i := range r.Results {
				r.Results[i].Gateway = nil
			}
			return r
		}(), true, []string{"marked 1500 of", "1500 gateway-authz-error"}, []string{"counter"}, SeverityCritical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := diagKinds(Diagnose(tt.run, nil))[KindGatewayAuthzErrors]
			if ok != tt.want {
				t.Fatalf("finding present %v, want %v", ok, tt.want)
			}
			if !ok {
				return
			}
			for _, w := range tt.evidence {
				if !strings.Contains(f.Evidence, w) {
					t.Errorf("evidence lacks %q:\n%s", w, f.Evidence)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(f.Evidence, w) {
					t.Errorf("evidence has %q:\n%s", w, f.Evidence)
				}
			}
			if f.Severity != tt.wantSeverities {
				t.Errorf("severity %s, want %s", f.Severity, tt.wantSeverities)
			}
			if !strings.Contains(f.Advice, "--authz-timeout") || !strings.Contains(f.Advice, "not a denial") && !strings.Contains(f.Advice, "same 403 as a denial") {
				t.Errorf("advice: %s", f.Advice)
			}
		})
	}
}

// The gateway's 403s start when the authz service falls behind: the
// auth-errors finding must not call them a token expiring.
func TestAuthErrorsNameTheGatewaysOwn403s(t *testing.T) {
	run := gatewayRun(300, 0)
	tl := &results.Timeline{}
	for _, r := range run.Results {
		pts := []results.Point{{T: 0, Requests: 100}}
		for s := 1; s < 5; s++ {
			pts = append(pts, results.Point{T: float64(s), Requests: 100, AuthErrors: 80})
		}
		tl.Series = append(tl.Series, results.Series{Target: r.Target, Iteration: r.Iteration, Points: pts})
	}
	f, ok := diagKinds(Diagnose(run, tl))[KindAuthErrors]
	if !ok {
		t.Fatal("no auth-errors finding")
	}
	if strings.Contains(f.Evidence, "token expiring") || !strings.Contains(f.Evidence, "1500 are the gateway's own") {
		t.Errorf("evidence: %s", f.Evidence)
	}
	plain := gatewayRun(300, 0)
	for i := range plain.Results {
		plain.Results[i].Answers = nil
	}
	if f := diagKinds(Diagnose(plain, tl))[KindAuthErrors]; !strings.Contains(f.Evidence, "token expiring") {
		t.Errorf("without classes the expiry reading is lost: %s", f.Evidence)
	}
}
