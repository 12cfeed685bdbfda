package kubeapi

import (
	"os"
	"path/filepath"
)

// KubeconfigPath is the kubeconfig file every command taking --kubeconfig
// reads, with kubectl's precedence: the flag when given, else the first
// file of $KUBECONFIG, else ~/.kube/config. Only the first file of
// $KUBECONFIG is read: authbench does not merge kubeconfigs as kubectl does.
func KubeconfigPath(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		for _, f := range filepath.SplitList(env) {
			if f != "" {
				return f
			}
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".kube", "config")
}
