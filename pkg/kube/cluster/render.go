package cluster

import (
	"bytes"
	"embed"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
)

//go:embed templates
var templateFS embed.FS

var templates = template.Must(template.ParseFS(templateFS, "templates/*"))

// renderData is what the templates see.
type renderData struct {
	Dir, PauseImage, Bridge, PodSubnet, CgroupRoot string
	Ports                                          Ports
	Port                                           int
	User                                           string
}

func render(name, path string, data renderData, mode os.FileMode) error {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return fmt.Errorf("rendering %s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), mode); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// writeConfigs renders every config file of the cluster; kubeconfigs are
// mode 0600 (they name admin keys).
func writeConfigs(dir string, d renderData) error {
	files := []struct {
		tmpl, path string
	}{
		{"containerd.toml", filepath.Join(dir, "containerd", "config.toml")},
		{"cni.conflist", filepath.Join(dir, "cni", "10-authbench.conflist")},
		{"kubelet.yaml", filepath.Join(dir, "kubelet", "config.yaml")},
	}
	for _, f := range files {
		if err := render(f.tmpl, f.path, d, 0o644); err != nil {
			return err
		}
	}
	for _, user := range []string{"admin", "controller-manager", "scheduler", "kubelet"} {
		u := d
		u.Port, u.User = d.Ports.APIServer, user
		path := filepath.Join(dir, "kubeconfigs", user+".yaml")
		if user == "admin" {
			path = paths{dir}.kubeconfig()
		}
		if err := render("kubeconfig.yaml", path, u, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// freePorts picks n distinct free loopback ports.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// sysctls the kubelet writes at start; the namespace shadows them.
var sysctls = []string{"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"}

// writeSysctlFiles copies the host's current values into the files the
// supervisor binds over /proc/sys, and returns the shadowed paths.
func writeSysctlFiles(dir string) ([]string, error) {
	var out []string
	d := filepath.Join(dir, "root", "sysctl")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, err
	}
	for _, s := range sysctls {
		src := "/proc/sys/" + s
		v, err := os.ReadFile(src)
		if err != nil {
			continue // absent on this kernel: nothing to protect
		}
		if err := os.WriteFile(filepath.Join(d, strings.ReplaceAll(s, "/", ".")), v, 0o644); err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
