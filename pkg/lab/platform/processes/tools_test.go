package processes

import (
	"os"
	"path/filepath"
	"testing"
)

// The state records the version a binary reports, not the one its cache
// directory is named after; a binary that cannot answer falls back to it.
func TestInstalledVersionAsksTheBinary(t *testing.T) {
	tests := []struct {
		name, program, script, want string
	}{
		{"haproxy says", "haproxy", "echo 'HAProxy version 2.8.25-5cf5d0683 2026/06/26 - https://haproxy.org/'", "2.8.25"},
		{"envoy says", "envoy", "echo 'envoy  version: 9e5580933739775e8bce696a57a2e1bc99368f23/1.40.0/Clean/RELEASE/BoringSSL'", "1.40.0"},
		{"silent binary: cache path", "haproxy", "exit 3", "9.9.9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.program+"-9.9.9", "bin", tc.program)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"+tc.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if got := installedVersion(tc.program, path); got != tc.want {
				t.Errorf("installedVersion = %q, want %q", got, tc.want)
			}
		})
	}
}
