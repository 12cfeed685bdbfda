package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrustPlainHTTPRegistry(t *testing.T) {
	tests := []struct{ host, wantErr string }{
		{"127.0.0.1:5000", ""},
		{"127.0.0.2:43211", ""},
		{"10.0.0.5:5000", "only from a registry on 127.0.0.1"},
		{"registry.example.com:5000", "only from a registry on 127.0.0.1"},
		{"127.0.0.1", "want 127.0.0.1:PORT"},
		{"127.0.0.1:0", "bad port"},
		{"127.0.0.1:../x", "bad port"},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			c := &Cluster{Dir: t.TempDir()}
			err := c.TrustPlainHTTPRegistry(tc.host)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(c.Dir, "containerd", "certs.d", tc.host, "hosts.toml"))
			if err != nil || !strings.Contains(string(b), `[host."http://`+tc.host+`"]`) {
				t.Fatalf("hosts.toml %q, %v: want a plain-HTTP host %s", b, err, tc.host)
			}
		})
	}
}
