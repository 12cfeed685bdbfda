package plan

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A zero that was given is checked; a zero that was not is unset and gets
// its default. Errors name where the value was given.
func TestGivenZeroIsNotUnset(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Plan)
		want   string // the error; "" means valid
	}{
		{"unset zeros get defaults", func(*Plan) {}, ""},
		{"concurrency 0 from a file", func(p *Plan) { p.Give(FieldConcurrency, "s.yaml:6") }, "s.yaml:6: load.concurrency: must be at least 1, got 0"},
		{"requests 0 from a flag", func(p *Plan) { p.Give(FieldRequests, "-n") }, "requests (-n): must be at least 1, got 0"},
		{"requests replaced by a duration", func(p *Plan) {
			p.Give(FieldRequests, "s.yaml:5")
			p.Load.Duration = Duration(time.Second)
		}, ""},
		{"iterations 0 without origin", func(p *Plan) { p.Give(FieldIterations, "") }, "load.iterations: must be at least 1, got 0"},
		{"rate 0 given", func(p *Plan) { p.Give(FieldRate, "-q") }, "rate (-q): must be more than 0"},
		{"timeout 0 given", func(p *Plan) { p.Give(FieldTimeout, "-t") }, "timeout (-t): must be positive"},
		{"warmup 0 given is no warm-up", func(p *Plan) { p.Give(FieldWarmup, "--warmup") }, ""},
		{"delay 0 given is no delay", func(p *Plan) { p.Give(FieldDelay, "--delay") }, ""},
		{"p99 0 given", func(p *Plan) { p.SLO = &SLO{}; p.Give(FieldSLOP99, "--slo") }, "p99 (--slo): must be positive"},
		{"cert without key", func(p *Plan) { p.Client.Cert = "c.pem"; p.Give(FieldCert, "--cert") }, "add --key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plan{Targets: []Target{{URL: "http://127.0.0.1/"}}}
			tc.mutate(p)
			err := p.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want error containing %q, got %v", tc.want, err)
			}
			if tc.want != "" {
				var fes Errors
				if !errors.As(err, &fes) || len(fes) != 1 {
					t.Errorf("want one FieldError, got %#v", err)
				}
			}
		})
	}
}

// Complete keeps given values, zero included, and Validate reports every
// problem at once.
func TestCompleteKeepsGivenValues(t *testing.T) {
	p := &Plan{Targets: []Target{{URL: "http://127.0.0.1/"}}}
	p.Give(FieldConcurrency, "-c")
	p.Give(FieldIterations, "--iterations")
	p.Complete()
	if p.Load.Concurrency != 0 || p.Load.Iterations != 0 || p.Load.Requests != DefaultRequests {
		t.Fatalf("load = %+v: given zeros replaced, or unset requests not defaulted", p.Load)
	}
	var fes Errors
	if err := p.Validate(); !errors.As(err, &fes) || len(fes) != 2 {
		t.Fatalf("want two FieldErrors, got %v", err)
	}
}

// Validate before Complete checks the values the plan will run with.
func TestValidateBeforeComplete(t *testing.T) {
	p := &Plan{Targets: []Target{{URL: "http://127.0.0.1/"}}, Load: Load{Requests: 10}}
	p.Give(FieldRequests, "s.yaml:5")
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "s.yaml:5: load.requests: 10 requests cannot keep the default 50 workers busy") {
		t.Fatalf("got %v", err)
	}
	if p.Load.Concurrency != 0 {
		t.Errorf("Validate changed the plan: %+v", p.Load)
	}
}

func TestParseSLO(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    SLO
		fields  int
		wantErr string
	}{
		{in: "p99<100ms", want: SLO{P99: Duration(100 * time.Millisecond)}, fields: 1},
		{in: "p50<=20ms, p95<50ms,p99<100ms", want: SLO{P50: Duration(20 * time.Millisecond), P95: Duration(50 * time.Millisecond), P99: Duration(100 * time.Millisecond)}, fields: 3},
		{in: "success_rate>=99.9%,throughput>=500", want: SLO{SuccessRate: 0.999, Throughput: 500}, fields: 2},
		{in: "success_rate>0.99,throughput>250rps", want: SLO{SuccessRate: 0.99, Throughput: 250}, fields: 2},
		{in: "p99>100ms", wantErr: "p99 takes <"},
		{in: "throughput<5", wantErr: "throughput takes >="},
		{in: "p98<1s", wantErr: "want KEY<VALUE"},
		{in: "p99<fast", wantErr: "duration"},
		{in: "success_rate>=lots%", wantErr: "percentage"},
		{in: "", wantErr: "no objective"},
		{in: "p99", wantErr: "want KEY<VALUE"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, fields, err := ParseSLO(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *got != tc.want || len(fields) != tc.fields {
				t.Errorf("got %+v %v, want %+v (%d fields)", *got, fields, tc.want, tc.fields)
			}
		})
	}
}

// ParseSLO reads what users type on a command line; it must not panic.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99<100ms,success_rate>=99.9%", "throughput>=5", "<", ">=", "p50<=", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, fields, err := ParseSLO(s)
		if err == nil && (slo == nil || len(fields) == 0) {
			t.Fatalf("ParseSLO(%q) = %v, %v without error", s, slo, fields)
		}
	})
}
