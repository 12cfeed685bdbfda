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
