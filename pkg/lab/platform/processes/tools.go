package processes

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
)

// lookupTool finds a lab program installed by `authbench lab install`: a
// pinned Go tool, Keycloak's kc.sh, or a Debian package's program.
// toolVersion says which version it is. Tests replace both.
var (
	lookupTool  = toolcache.ToolPath
	toolVersion = installedVersion
)

// installedVersion reads a pinned tool's version from its cache path
// (…/NAME-VERSION/bin/NAME), else asks the program.
func installedVersion(name, path string) string {
	if v := versionFromToolPath(name, path); v != "" {
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, _ := toolcache.InstalledVersion(ctx, name)
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
