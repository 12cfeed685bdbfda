package lab

import (
	"strings"
	"testing"
)

func TestParseLimit(t *testing.T) {
	tests := []struct {
		in      string
		want    Limit
		str     string
		wantErr string
	}{
		{in: "oauth2-proxy=50m", want: Limit{Component: "oauth2-proxy", MilliCPU: 50}, str: "50m"},
		{in: "oauth2-proxy=500m,256Mi", want: Limit{Component: "oauth2-proxy", MilliCPU: 500, MemoryBytes: 256 << 20}, str: "500m,256Mi"},
		{in: "haproxy=0.5", want: Limit{Component: "haproxy", MilliCPU: 500}, str: "500m"},
		{in: "nginx=2", want: Limit{Component: "nginx", MilliCPU: 2000}, str: "2000m"},
		{in: "nginx=,1Gi", want: Limit{Component: "nginx", MemoryBytes: 1 << 30}, str: "1Gi"},
		{in: " keycloak = 1 , 100M ", want: Limit{Component: "keycloak", MilliCPU: 1000, MemoryBytes: 100e6}, str: "1000m,100000000"},
		{in: "x=10m,4096", want: Limit{Component: "x", MilliCPU: 10, MemoryBytes: 4096}, str: "10m,4Ki"},
		{in: "oauth2-proxy", wantErr: "want COMPONENT=CPU[,MEM]"},
		{in: "=50m", wantErr: "want COMPONENT=CPU[,MEM]"},
		{in: "a=", wantErr: "want COMPONENT=CPU[,MEM]"},
		{in: "a=-5m", wantErr: "cpu"},
		{in: "a=0m", wantErr: "cpu"},
		{in: "a=fast", wantErr: "cpu"},
		{in: "a=50m,lots", wantErr: "memory"},
		{in: "a=50m,-1Mi", wantErr: "memory"},
		{in: "a=,", wantErr: "memory"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLimit(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseLimit(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLimit(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseLimit(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.str {
				t.Errorf("String() = %q, want %q", s, tt.str)
			}
		})
	}
}

func TestParseLimitsRejectsDuplicates(t *testing.T) {
	_, err := ParseLimits([]string{"nginx=50m", "nginx=100m"})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("error = %v, want a duplicate error", err)
	}
	got, err := ParseLimits([]string{"nginx=50m", "haproxy=1"})
	if err != nil || len(got) != 2 {
		t.Fatalf("ParseLimits = %v, %v", got, err)
	}
}

func TestApplyLimits(t *testing.T) {
	mk := func(name, program string) *spec {
		return &spec{ComponentInfo: ComponentInfo{Name: name, Program: program}}
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
			l, err := ParseLimit(tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			err = applyLimits(specs, []Limit{l})
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
