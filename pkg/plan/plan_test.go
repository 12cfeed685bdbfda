package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/auth"
)

func TestCompleteDefaults(t *testing.T) {
	p := Plan{Targets: []Target{{URL: "http://127.0.0.1:8080/echo", Body: []byte("abc")}}}
	p.Complete()
	l, tg := p.Load, p.Targets[0]
	if l.Requests != DefaultRequests || l.Concurrency != DefaultConcurrency || l.Iterations != DefaultIterations ||
		p.Client.Timeout != DefaultTimeout || tg.Method != "GET" || tg.Name != "127.0.0.1:8080" || tg.BodyBytes != 3 || p.Name != "run" {
		t.Fatalf("defaults not applied: %+v", p)
	}
	d := Plan{Targets: []Target{{URL: "http://127.0.0.1/"}}, Load: Load{Duration: Duration(time.Second)}}
	d.Complete()
	if d.Load.Requests != 0 {
		t.Fatalf("a duration must not also get a request count, got %d", d.Load.Requests)
	}
}

func TestValidate(t *testing.T) {
	base := func() Plan {
		p := Plan{Targets: []Target{{URL: "http://127.0.0.1/"}}}
		p.Complete()
		return p
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Plan)
		want   string // substring of the error; "" means valid
	}{
		{"defaults", func(*Plan) {}, ""},
		{"no target", func(p *Plan) { p.Targets = nil }, "no target"},
		{"bad scheme", func(p *Plan) { p.Targets[0].URL = "ftp://127.0.0.1/" }, "scheme"},
		{"no host", func(p *Plan) { p.Targets[0].URL = "http:///x" }, "no host"},
		{"negative requests", func(p *Plan) { p.Load.Requests = -1 }, "requests"},
		{"zero concurrency", func(p *Plan) { p.Load.Concurrency = 0 }, "concurrency"},
		{"negative rate", func(p *Plan) { p.Load.Rate = -2 }, "rate"},
		{"zero iterations", func(p *Plan) { p.Load.Iterations = 0 }, "iterations"},
		{"zero timeout", func(p *Plan) { p.Client.Timeout = 0 }, "timeout"},
		{"more workers than requests", func(p *Plan) { p.Load.Requests = 10 }, "cannot exceed"},
		{"open loop may have more workers", func(p *Plan) { p.Load.Requests, p.Load.Rate = 10, 5 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			tc.mutate(&p)
			err := p.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want error containing %q, got %v", tc.want, err)
			}
		})
	}
}

func TestPlanJSONHoldsNoSecret(t *testing.T) {
	const secret = "s3cr3t-token-value"
	p := Plan{Targets: []Target{{
		URL:     "http://127.0.0.1/",
		Headers: []Header{{Name: "Authorization", Value: "Bearer " + secret}, {Name: "Cookie", Value: "session=" + secret}},
		Token:   &auth.Spec{Static: true, Literal: secret},
		Body:    []byte(secret),
	}}}
	b, err := marshalJSON(p) // as run.json is written: no HTML escaping
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Fatalf("plan JSON leaks the secret: %s", b)
	}
	if !strings.Contains(string(b), "Bearer <redacted") {
		t.Fatalf("redacted header should keep its scheme: %s", b)
	}
}

func TestDurationJSON(t *testing.T) {
	var d Duration
	if err := json.Unmarshal([]byte(`"1.5s"`), &d); err != nil || d.D() != 1500*time.Millisecond {
		t.Fatalf("got %v, %v", d, err)
	}
	if err := json.Unmarshal([]byte(`15`), &d); err == nil {
		t.Fatal("a bare number must be refused: its unit is ambiguous")
	}
	b, _ := json.Marshal(Duration(2 * time.Second))
	if string(b) != `"2s"` {
		t.Fatalf("got %s", b)
	}
}
