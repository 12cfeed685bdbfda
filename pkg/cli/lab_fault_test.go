package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// lab fault refuses a bad link or combination before looking for a lab,
// naming the flag; a good one on a stopped lab says no lab runs.
func TestLabFaultBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nolab")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no link", nil, []string{"accepts 1 arg"}},
		{"unknown link", []string{"etcd", "--delay", "5ms"}, []string{`unknown link "etcd"`, "apiserver, keycloak, client"}},
		{"no fault", []string{"apiserver"}, []string{"no fault given", "--delay", "--down", "--bandwidth"}},
		{"down and delay", []string{"apiserver", "--down", "--delay", "5ms"}, []string{"--down excludes --delay"}},
		{"jitter above delay", []string{"apiserver", "--delay", "5ms", "--jitter", "6ms"}, []string{"--jitter 6ms", "--delay 5ms"}},
		{"sub-millisecond delay", []string{"apiserver", "--delay", "500us"}, []string{"whole milliseconds"}},
		{"negative for", []string{"apiserver", "--down", "--for", "-1s"}, []string{"--for -1s"}},
		{"bad bandwidth", []string{"client", "--bandwidth", "fast"}, []string{"--bandwidth", `"fast"`, "KB/s"}},
		{"clear with a fault", []string{"keycloak", "--clear", "--down"}, []string{"--clear takes no other fault flag"}},
		{"no lab", []string{"apiserver", "--delay", "5ms"}, []string{"no lab is running"}},
		{"no lab to clear", []string{"apiserver", "--clear"}, []string{"no lab is running"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"lab", "fault", "--lab-dir", dir}, tc.args...)
			r := runCLI(t, args...)
			if r.code == 0 {
				t.Fatalf("authbench %s: exit 0, want an error", strings.Join(args, " "))
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q lacks %q", r.stderr, w)
				}
			}
		})
	}
}

// lab up checks --client-rtt before starting anything.
func TestLabUpClientRTTBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	r := runCLI(t, "lab", "up", "--lab-dir", dir, "--client-rtt", "1500us")
	if r.code == 0 || !strings.Contains(r.stderr, "--client-rtt 1.5ms: want whole milliseconds") {
		t.Errorf("lab up --client-rtt 1500us: exit %d, %q", r.code, r.stderr)
	}
}
