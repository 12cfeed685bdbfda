package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

// TestRenderGolden renders every config of a cluster in a fixed directory
// with fixed ports and compares with testdata/render/*.golden.
func TestRenderGolden(t *testing.T) {
	dir := t.TempDir()
	d := renderData{Dir: "/lab/kube", PauseImage: "authbench.local/pause:3.10-authbench1", Bridge: "abk01234567",
		PodSubnet: "10.244.0.0/24", CgroupRoot: "authbench-kube-01234567",
		Ports: Ports{Etcd: 2379, EtcdPeer: 2380, APIServer: 6443, ControllerManager: 10257, Scheduler: 10259, Kubelet: 10250, KubeletHealthz: 10248}}
	if err := writeConfigs(dir, d); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"containerd.toml": "containerd/config.toml", "cni.conflist": "cni/10-authbench.conflist",
		"kubelet.yaml": "kubelet/config.yaml", "kubeconfig-admin.yaml": "kubeconfig",
		"kubeconfig-kubelet.yaml": "kubeconfigs/kubelet.yaml",
	}
	for golden, rel := range files {
		t.Run(golden, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, "testdata/render/"+golden+".golden", got)
		})
	}
	st, err := os.Stat(filepath.Join(dir, "kubeconfig"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("admin kubeconfig mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

func TestHostObjectNames(t *testing.T) {
	a, b := "/tmp/lab-a", "/tmp/lab-b"
	if Bridge(a) == Bridge(b) || CgroupRoot(a) == CgroupRoot(b) {
		t.Error("two directories share host object names")
	}
	if len(Bridge(a)) > 15 {
		t.Errorf("bridge name %q is longer than an interface name may be", Bridge(a))
	}
	if Bridge(a) != Bridge(a+"/") {
		t.Error("the names depend on a trailing slash")
	}
}

func TestComponentsOrder(t *testing.T) {
	cs := components("/lab", "/bin/hyperkube", Ports{Etcd: 1, EtcdPeer: 2, APIServer: 3, ControllerManager: 4, Scheduler: 5, Kubelet: 6, KubeletHealthz: 7}, nil)
	started := map[string]bool{}
	for _, c := range cs {
		for _, a := range c.After {
			if !started[a] {
				t.Errorf("%s comes after %s, which starts later", c.Name, a)
			}
		}
		started[c.Name] = true
		for _, arg := range c.Argv {
			if strings.Contains(arg, "0.0.0.0") {
				t.Errorf("%s binds all interfaces: %s", c.Name, arg)
			}
		}
	}
}

func TestGone(t *testing.T) {
	if gone(os.Getpid()) {
		t.Error("this process counts as gone")
	}
	if !gone(1 << 30) {
		t.Error("a pid that cannot exist counts as running")
	}
}
