package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Pinned versions of the Go tools the lab runs; pkg/lab/install builds them.
const (
	VersionHTTPEcho      = "v1.0.0"
	VersionOAuth2Proxy   = "v7.8.1"
	VersionKubeRBACProxy = "v0.19.1"
	VersionKubeAPIServer = "v1.32.2"
)

// lookupTool finds a pinned Go tool built by `authbench lab install`, and
// lookupProgram one from the distribution's packages; tests replace both,
// and programVersion.
var (
	lookupTool     = cachedToolPath
	lookupProgram  = lookupSystem
	programVersion = runVersion
)

// cachedToolPath looks for CACHE/tools/NAME-VERSION/bin/NAME, CACHE being
// $AUTHBENCH_CACHE or ~/.cache/authbench.
func cachedToolPath(name string) (string, error) {
	cache := os.Getenv("AUTHBENCH_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("finding %s: %w", name, err)
		}
		cache = filepath.Join(base, "authbench")
	}
	bin := name
	if name == "keycloak" {
		bin = "kc.sh"
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "tools", name+"-*", "bin", bin))
	if len(matches) == 0 {
		return "", fmt.Errorf("%s is not installed (run `authbench lab install`)", name)
	}
	return matches[len(matches)-1], nil
}

// lookupSystem finds a program installed from the distribution's packages;
// sbin directories are searched too since PATH often lacks them.
func lookupSystem(name, pkg string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/usr/bin", "/sbin", "/usr/local/sbin", "/usr/local/bin"} {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed (package %s; run `authbench lab install`)", name, pkg)
}

// versionFromToolPath reads VERSION from .../NAME-VERSION/bin/NAME.
func versionFromToolPath(name, path string) string {
	dir := filepath.Base(filepath.Dir(filepath.Dir(path)))
	if v, ok := strings.CutPrefix(dir, name+"-"); ok {
		return v
	}
	return ""
}

var versionRE = regexp.MustCompile(`v?\d+\.\d+(\.\d+)?`)

// runVersion runs "PROG ARGS" and returns the first version-looking
// word of its output, e.g. "2.6.12" from haproxy -v.
func runVersion(path string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, args...).CombinedOutput()
	return versionRE.FindString(string(out))
}
