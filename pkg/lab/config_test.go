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

// --client-rtt is checked once and implies the client link.
func TestCompleteClient(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      Config
		wantLink bool
		err      string
	}{
		{"none", Config{}, false, ""},
		{"link alone", Config{ClientLink: true}, true, ""},
		{"rtt implies the link", Config{ClientRTT: 45 * time.Millisecond}, true, ""},
		{"negative", Config{ClientRTT: -time.Millisecond}, false, "--client-rtt -1ms"},
		{"sub-millisecond", Config{ClientRTT: 1500 * time.Microsecond}, false, "whole milliseconds"},
		{"too far", Config{ClientRTT: 2 * time.Minute}, false, "--client-rtt 2m0s"},
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
			if err != nil || c.ClientLink != tc.wantLink {
				t.Fatalf("Complete: %v, client link %v; want nil, %v", err, c.ClientLink, tc.wantLink)
			}
			if f, ok := c.ClientFault(); ok != (c.ClientRTT > 0) || ok && f.Validate() != nil {
				t.Errorf("ClientFault() = %+v, %v: want a valid delay fault exactly with --client-rtt", f, ok)
			}
		})
	}
}

func TestStatusShowsLinksAndFaults(t *testing.T) {
	since := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	until := since.Add(5 * time.Second)
	s := &State{Dir: "/LAB", Phase: PhaseReady, Links: []LinkInfo{
		{Name: "apiserver", Proxies: []FaultProxy{{Name: "apiserver", Listen: "127.0.0.1:1", Upstream: "127.0.0.1:2"}}},
		{Name: "keycloak", Proxies: []FaultProxy{{Name: "keycloak", Listen: "127.0.0.1:3", Upstream: "127.0.0.1:4"}}}},
		Faults: []ActiveFault{{Fault: Fault{Link: "apiserver", Down: true, For: 5 * time.Second}, Since: &since, Until: &until}}}
	var b strings.Builder
	if err := WriteStatus(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiserver  FAULT down since 06:00:00 until 06:00:05  [127.0.0.1:1 -> 127.0.0.1:2]",
		"keycloak   no fault  [127.0.0.1:3 -> 127.0.0.1:4]"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}
