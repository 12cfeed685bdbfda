package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// The gateways' ext_authz settings get the OpenShift AI gateway's defaults,
// are checked once, and reach the state only with a 3x stack.
func TestCompleteAuthz(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want *Authz
		err  string
	}{
		{"defaults", Config{}, &Authz{Timeout: "5s", FailureMode: "deny"}, ""},
		{"given", Config{Stacks: []string{stacks.Stack3xOAuth}, AuthzTimeout: 200 * time.Millisecond, AuthzFailureMode: "Allow"},
			&Authz{Timeout: "200ms", FailureMode: "allow"}, ""},
		{"no 3x stack", Config{Stacks: []string{stacks.Stack2x}}, nil, ""},
		{"bad timeout", Config{AuthzTimeout: time.Microsecond}, nil, "--authz-timeout"},
		{"bad mode", Config{AuthzFailureMode: "open"}, nil, "--authz-failure-mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			err := c.Complete()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Complete: %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := c.Authz()
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("Authz() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestStatusShowsAuthz(t *testing.T) {
	var b strings.Builder
	if err := WriteStatus(&b, &State{Dir: "/LAB", Phase: PhaseReady, Authz: &Authz{Timeout: "5s", FailureMode: "deny"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ext_authz (the 3x gateways): timeout 5s, failure mode deny") {
		t.Errorf("status lacks the ext_authz settings:\n%s", b.String())
	}
}
