package processes

import (
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/lab"
)

func TestApplyLimits(t *testing.T) {
	mk := func(name, program string) *spec {
		return &spec{ComponentInfo: lab.ComponentInfo{Name: name, Program: program}}
	}
	tests := []struct {
		name    string
		limit   string
		hit     []string
		wantErr string
	}{
		{name: "exact name", limit: "kube-rbac-proxy=50m", hit: []string{"kube-rbac-proxy"}},
		{name: "exact name wins over program", limit: "oauth-proxy=50m", hit: []string{"oauth-proxy"}},
		{name: "program matches every instance", limit: "http-echo=100m", hit: []string{"http-echo-2x", "http-echo-3x"}},
		{name: "unknown", limit: "envoy=1", wantErr: "no such component"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs := []*spec{mk("oauth-proxy", "kube-rbac-proxy"), mk("kube-rbac-proxy", "kube-rbac-proxy"),
				mk("http-echo-2x", "http-echo"), mk("http-echo-3x", "http-echo")}
			l, err := lab.ParseLimit(tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			err = applyLimits(specs, []lab.Limit{l})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var hit []string
			for _, sp := range specs {
				if sp.Limit != "" {
					hit = append(hit, sp.Name)
					if sp.limit != l {
						t.Errorf("%s limit = %+v, want %+v", sp.Name, sp.limit, l)
					}
				}
			}
			if strings.Join(hit, ",") != strings.Join(tt.hit, ",") {
				t.Errorf("limited %v, want %v", hit, tt.hit)
			}
		})
	}
}
