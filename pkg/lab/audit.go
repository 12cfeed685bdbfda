package lab

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteAuditPolicy renders the kube-apiserver audit policy into dir/conf
// and returns its path, for a platform whose API server should log the
// proxies' reviews to dir/AuditLog as the processes platform's does (runs
// count them). It also removes the previous lab's audit log.
func WriteAuditPolicy(dir string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "conf"), 0o700); err != nil {
		return "", fmt.Errorf("creating lab conf dir: %w", err)
	}
	_ = os.Remove(filepath.Join(dir, AuditLog))
	p := confPath(dir, "audit-policy.yaml")
	return p, renderTo(p, "audit-policy.yaml", renderData{Dir: dir})
}
