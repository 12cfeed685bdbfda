package image

import (
	"strings"
	"testing"
)

func TestParseDestination(t *testing.T) {
	tests := []struct {
		ref      string
		insecure bool
		want     string // String(), or the error's text
		wantErr  bool
	}{
		{"127.0.0.1:5000/authbench", true, "127.0.0.1:5000/authbench:sha-1", false},
		{"localhost:5000/team/authbench:dev", true, "localhost:5000/team/authbench:dev", false},
		{"registry.example.com/team/authbench", false, "registry.example.com/team/authbench:sha-1", false},
		{"[::1]:5000/authbench", true, "[::1]:5000/authbench:sha-1", false},
		{"registry.example.com/authbench", true, "only for a registry on loopback", true},
		{"10.0.0.5:5000/authbench", true, "only for a registry on loopback", true},
		{"authbench", false, "name its registry host first", true},
		{"team/authbench", false, "name its registry host first", true},
		{"https://registry.example.com/authbench", false, "without a scheme", true},
		{"user:pw@registry.example.com/authbench", false, "no credentials or digest", true},
		{"registry.example.com/authbench@sha256:" + strings.Repeat("a", 64), false, "no credentials or digest", true},
		{"registry.example.com/Auth Bench", false, "white space", true},
		{"registry.example.com/UPPER", false, "repository can only contain", true},
		{"", false, "empty", true},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			d, err := ParseDestination(tc.ref, "sha-1", tc.insecure)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil || d.String() != tc.want || d.Insecure() != tc.insecure {
				t.Fatalf("got %q insecure=%v, %v; want %q", d, d.Insecure(), err, tc.want)
			}
		})
	}
}

func TestRegistryDestination(t *testing.T) {
	tests := []struct{ registry, want string }{
		{"127.0.0.1:5000", "127.0.0.1:5000/authbench:sha-1"},
		{"registry.example.com/team/", "registry.example.com/team/authbench:sha-1"},
		{"registry.example.com/team:tag", "error"},
		{"", "error"},
	}
	for _, tc := range tests {
		d, err := RegistryDestination(tc.registry, "authbench", "sha-1", false)
		got := d.String()
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("RegistryDestination(%q) = %q (%v), want %q", tc.registry, got, err, tc.want)
		}
	}
}

// FuzzParseDestination: no input panics, and an accepted plain-HTTP
// destination is always on loopback and never carries credentials.
func FuzzParseDestination(f *testing.F) {
	for _, s := range []string{"127.0.0.1:5000/a", "localhost/a:b", "r.example/a", "user:pw@h/a", "h:1/a@sha256:00", "[::1]:1/x"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, ref string, insecure bool) {
		d, err := ParseDestination(ref, "t", insecure)
		if err != nil {
			return
		}
		if d.Insecure() && !IsLoopbackHost(d.Host()) {
			t.Fatalf("%q: plain HTTP to %s", ref, d.Host())
		}
		if strings.Contains(d.String(), "@") {
			t.Fatalf("%q: accepted with an @: %s", ref, d)
		}
	})
}
