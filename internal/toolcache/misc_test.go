package toolcache

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNotInstalled(t *testing.T) {
	out := "haproxy\tii \nnginx\tiU \nhey:amd64\tii \nwrk\trc \n"
	got := notInstalled(out, []string{"haproxy", "nginx", "hey", "wrk", "prometheus"})
	if want := []string{"nginx", "wrk", "prometheus"}; !slices.Equal(got, want) {
		t.Errorf("notInstalled = %v, want %v", got, want)
	}
}

func TestAptGroups(t *testing.T) {
	groups := AptGroups()
	need := []string{"nginx", "etcd-server", "etcd-client", "hey", "wrk", "prometheus", "openjdk-17-jre-headless"}
	var required []string
	for _, g := range groups {
		if !g.Optional {
			required = append(required, g.Packages...)
		}
	}
	for _, p := range need {
		if !slices.Contains(required, p) {
			t.Errorf("required packages lack %s", p)
		}
	}
	if slices.Contains(required, "chromium") {
		t.Error("chromium must be optional")
	}
	if slices.Contains(required, "haproxy") {
		t.Error("HAProxy comes from its wheel (2.8, the router's line), not Debian's package")
	}
}

func TestVersionRE(t *testing.T) {
	tests := []struct{ out, want string }{
		{"HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/", "2.6.12"},
		{"nginx version: nginx/1.22.1", "1.22.1"},
		{"Kubernetes v1.32.2", "v1.32.2"},
		{"oauth2-proxy v7.8.1 (built with go1.26.8)", "v7.8.1"},
		{`openjdk version "17.0.15" 2025-04-15`, "17.0.15"},
		{"/usr/bin/chromium: 9: [: 25276510208: unexpected operator\nChromium 156.0.8078.79 built on Debian", "156.0.8078"},
		{"Keycloak - Version 26.7.3", "26.7.3"},
	}
	for _, tc := range tests {
		if got := versionRE.FindString(tc.out); got != tc.want {
			t.Errorf("version of %q = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestComponentsCoverToolsAndPackages(t *testing.T) {
	names := componentNames()
	for _, want := range []string{"nginx", "etcd", "etcdctl", "hey", "kube-apiserver", "oauth2-proxy", "keycloak", "envoy", "haproxy"} {
		if !slices.Contains(names, want) {
			t.Errorf("Components() lacks %s", want)
		}
	}
	for _, c := range Components() {
		if (c.Package == "") == (c.Pinned == "") {
			t.Errorf("%s: want exactly one of Package and Pinned, got %+v", c.Name, c)
		}
	}
}

type tarEntry struct {
	name, body, link string
	dir              bool
}

func writeTarGz(t *testing.T, path string, entries []tarEntry) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		switch {
		case e.dir:
			h.Typeflag, h.Size = tar.TypeDir, 0
		case e.link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestUntarGz(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "kc.tar.gz")
	writeTarGz(t, archive, []tarEntry{
		{name: "keycloak-26.7.3/", dir: true},
		{name: "keycloak-26.7.3/bin/kc.sh", body: "#!/bin/sh\n"},
		{name: "keycloak-26.7.3/version.txt", body: "Keycloak - Version 26.7.3\n"},
		{name: "keycloak-26.7.3/lib/current", link: "../version.txt"},
	})
	dest := filepath.Join(dir, "out")
	if err := untarGz(archive, dest, 1); err != nil {
		t.Fatal(err)
	}
	if !isExecutable(filepath.Join(dest, "bin", "kc.sh")) {
		t.Error("bin/kc.sh missing or not executable")
	}
	if b, err := os.ReadFile(filepath.Join(dest, "lib", "current")); err != nil || !strings.Contains(string(b), "26.7.3") {
		t.Errorf("symlink not followed to version.txt: %q, %v", b, err)
	}
}

func TestUntarGzRefusesEscapes(t *testing.T) {
	tests := []struct {
		name  string
		entry tarEntry
	}{
		{"dot-dot path", tarEntry{name: "kc/../../evil", body: "x"}},
		{"absolute symlink", tarEntry{name: "kc/bin/sh", link: "/bin/sh"}},
		{"escaping symlink", tarEntry{name: "kc/a", link: "../../etc/passwd"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			archive := filepath.Join(dir, "bad.tar.gz")
			writeTarGz(t, archive, []tarEntry{tc.entry})
			if err := untarGz(archive, filepath.Join(dir, "out"), 1); err == nil {
				t.Error("untarGz accepted an entry leaving the destination")
			}
		})
	}
}

func TestLogTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	os.WriteFile(path, []byte("a\nb\nc\nd\n"), 0o644)
	if got, want := logTail(path, 2), "    c\n    d\n"; got != want {
		t.Errorf("logTail = %q, want %q", got, want)
	}
}

func TestCommandString(t *testing.T) {
	c := command{name: "go", args: []string{"build", "-ldflags", "-s -w", "-o", "x", ""}}
	if got, want := c.String(), `go build -ldflags "-s -w" -o x ""`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

func TestDenyServiceStarts(t *testing.T) {
	old := policyRCPath
	t.Cleanup(func() { policyRCPath = old })
	t.Run("writes and removes its own policy", func(t *testing.T) {
		policyRCPath = filepath.Join(t.TempDir(), "policy-rc.d")
		restore, err := denyServiceStarts(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(policyRCPath)
		if err != nil || !strings.Contains(string(b), "exit 101") || !isExecutable(policyRCPath) {
			t.Fatalf("policy %q, %v: want an executable exiting 101", b, err)
		}
		restore()
		if _, err := os.Stat(policyRCPath); !os.IsNotExist(err) {
			t.Errorf("policy left behind: %v", err)
		}
	})
	t.Run("keeps an existing policy", func(t *testing.T) {
		policyRCPath = filepath.Join(t.TempDir(), "policy-rc.d")
		mine := "#!/bin/sh\nexit 101 # docker\n"
		os.WriteFile(policyRCPath, []byte(mine), 0o755)
		restore, err := denyServiceStarts(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		restore()
		if b, _ := os.ReadFile(policyRCPath); string(b) != mine {
			t.Errorf("existing policy changed to %q", b)
		}
	})
}
