package toolcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCacheDir(t *testing.T) {
	tests := []struct {
		name, abCache, xdg, home, want string
	}{
		{"AUTHBENCH_CACHE wins", "/x/ab", "/x/xdg", "/x/home", "/x/ab"},
		{"XDG_CACHE_HOME next", "", "/x/xdg", "/x/home", "/x/xdg/authbench"},
		{"then HOME", "", "", "/x/home", "/x/home/.cache/authbench"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AUTHBENCH_CACHE", tc.abCache)
			t.Setenv("XDG_CACHE_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			if got := CacheDir(); got != tc.want {
				t.Errorf("CacheDir() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBinPathLayout(t *testing.T) {
	got := binPath("/c", "kube-apiserver", "v1.32.2")
	if want := "/c/tools/kube-apiserver-v1.32.2/bin/kube-apiserver"; got != want {
		t.Errorf("binPath = %q, want %q", got, want)
	}
}

// fakeExecutable writes a small executable file at path.
func fakeExecutable(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestToolPath(t *testing.T) {
	cache := t.TempDir()
	echo := binPath(cache, "http-echo", HTTPEchoVersion)
	fakeExecutable(t, echo)
	kc := keycloakScript(cache)
	fakeExecutable(t, kc)
	tests := []struct {
		name, tool, want, wantErr string
	}{
		{"cached tool", "http-echo", echo, ""},
		{"keycloak", "keycloak", kc, ""},
		{"missing tool names the fix", "kube-apiserver", "", "run `authbench lab install`"},
		{"missing tool names the path", "oauth2-proxy", "", binPath(cache, "oauth2-proxy", OAuth2ProxyVersion)},
		{"missing wheel names the path", "envoy", "", binPath(cache, "envoy", EnvoyVersion)},
		{"unknown", "traefik", "", `unknown lab program "traefik"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := toolPathIn(cache, tc.tool)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("toolPathIn = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestToolPathUsesCacheDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("AUTHBENCH_CACHE", cache)
	want := binPath(cache, "kube-rbac-proxy", KubeRBACProxyVersion)
	fakeExecutable(t, want)
	if got, err := ToolPath("kube-rbac-proxy"); err != nil || got != want {
		t.Errorf("ToolPath = %q, %v; want %q", got, err, want)
	}
}

func TestSystemPathNotInstalled(t *testing.T) {
	_, err := systemPath("authbench-no-such-program", "no-such-package")
	if err == nil || !strings.Contains(err.Error(), "no-such-package") || !strings.Contains(err.Error(), installHint) {
		t.Errorf("err = %v, want it to name the package and the fix", err)
	}
}
