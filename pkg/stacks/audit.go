package stacks

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteAuditPolicy renders the kube-apiserver audit policy into dir/conf
// and returns its path: every platform's API server logs the proxies'
// reviews with it, which runs count.
func WriteAuditPolicy(dir string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "conf"), 0o700); err != nil {
		return "", fmt.Errorf("creating lab conf dir: %w", err)
	}
	p := ConfPath(dir, ConfigAuditPolicy)
	return p, RenderTo(p, ConfigAuditPolicy, AuditPolicy{})
}
