package cli

import (
	"strings"
	"testing"
)

// Bad scale input fails before any lab is touched, naming the value.
func TestScaleBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"not scalable", []string{"lab", "scale", "--lab-dir", dir, "envoy-oauth=3"}, []string{"envoy-oauth", "cannot be scaled", "kube-auth-proxy-oauth"}},
		{"too many", []string{"lab", "scale", "--lab-dir", dir, "oauth-proxy=99"}, []string{"oauth-proxy=99", "from 1 to 32"}},
		{"no count", []string{"lab", "scale", "--lab-dir", dir, "oauth-proxy"}, []string{"COMPONENT=REPLICAS"}},
		{"no lab", []string{"lab", "scale", "--lab-dir", dir, "oauth-proxy=2"}, []string{"no lab is running"}},
		{"capacity replicas twice", []string{"capacity", "--slo", "p99<1s", "--replicas", "oauth-proxy=1,1", "http://127.0.0.1:1/"},
			[]string{"--replicas", "1 given twice"}},
		{"capacity replicas without a lab", []string{"capacity", "--slo", "p99<1s", "--replicas", "oauth-proxy=1,2", "http://127.0.0.1:1/"},
			[]string{"--replicas", "lab scenario"}},
		{"capacity limit alone", []string{"capacity", "--slo", "p99<1s", "--limit", "oauth-proxy=50m", "http://127.0.0.1:1/"},
			[]string{"--limit goes with --replicas"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}
