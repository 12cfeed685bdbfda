package kubeapi

import (
	"path/filepath"
	"testing"
)

func TestKubeconfigPath(t *testing.T) {
	sep := string(filepath.ListSeparator)
	for _, tc := range []struct {
		name, flag, env, want string
	}{
		{"flag wins", "/f/config", "/a/config", "/f/config"},
		{"first file of $KUBECONFIG", "", "/a/config" + sep + "/b/config", "/a/config"},
		{"empty entries skipped", "", sep + "/b/config", "/b/config"},
		{"home", "", "", "/home/u/.kube/config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.env)
			t.Setenv("HOME", "/home/u")
			if got := KubeconfigPath(tc.flag); got != tc.want {
				t.Errorf("KubeconfigPath(%q) with KUBECONFIG=%q = %q, want %q", tc.flag, tc.env, got, tc.want)
			}
		})
	}
}
