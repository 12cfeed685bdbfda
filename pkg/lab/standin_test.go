package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

func TestStandinWhatIfs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cfg       Config
		component string
		wantErr   string
		qps       float64
		burst     int
		cache     string
		whatIf    string
	}{
		{"real kube-auth-proxy", Config{}, stacks.KubeAuthProxyOAuth, "", 5, 10, "no cache", ""},
		{"raised QPS", Config{AuthzAPIQPS: 200}, stacks.KubeAuthProxyOAuth, "", 200, 400, "no cache", "--authz-api-qps=200"},
		{"cache what-if", Config{AuthzCache: time.Minute}, stacks.KubeAuthProxyOAuth, "", 5, 10, "TokenReview 1m", "--authz-cache=1m0s"},
		{"oauth-proxy keeps its own", Config{AuthzAPIQPS: 50}, stacks.OAuthProxy, "", 200, 400, "deny 5s", ""},
		{"negative QPS", Config{AuthzAPIQPS: -1}, "", "--authz-api-qps", 0, 0, "", ""},
		{"cache too long", Config{AuthzCache: 48 * time.Hour}, "", "--authz-cache", 0, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Complete()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Complete: %v, want an error naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := tc.cfg.StandinRecord(tc.component)
			if r == nil || r.APIQPS != tc.qps || r.APIBurst != tc.burst || !strings.Contains(r.Cache, tc.cache) ||
				strings.Join(r.WhatIf, " ") != tc.whatIf || r.Identity != tc.component {
				t.Errorf("record %+v, want %g QPS burst %d, cache %q, what-if %q", r, tc.qps, tc.burst, tc.cache, tc.whatIf)
			}
		})
	}
	c := Config{}
	if c.StandinRecord(stacks.HAProxy) != nil {
		t.Error("a real component has a stand-in record")
	}
}
