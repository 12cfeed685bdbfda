package cluster

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"text/template"
)

// registryHostsDir is containerd's config_path: a directory per registry
// host, each with a hosts.toml that containerd reads at every pull, so a
// registry is added to a running cluster without a restart.
func registryHostsDir(dir string) string { return filepath.Join(dir, "containerd", "certs.d") }

var hostsTemplate = template.Must(template.New("hosts.toml").Parse(`# Written by authbench (pkg/kube/cluster): a plain-HTTP registry on loopback.
server = "http://{{.}}"

[host."http://{{.}}"]
  capabilities = ["pull", "resolve"]
`))

// TrustPlainHTTPRegistry lets the cluster's containerd pull from the
// plain-HTTP registry at hostport, which must be on 127.0.0.1 (the lab
// sends traffic nowhere else). Credentials are not written here: pods
// name a pull secret.
func (c *Cluster) TrustPlainHTTPRegistry(hostport string) error {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("registry %q: want 127.0.0.1:PORT: %w", hostport, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("registry %q: the lab pulls only from a registry on 127.0.0.1", hostport)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("registry %q: bad port", hostport)
	}
	hp := net.JoinHostPort(host, port)
	var b bytes.Buffer
	if err := hostsTemplate.Execute(&b, hp); err != nil {
		return err
	}
	d := filepath.Join(registryHostsDir(c.Dir), hp)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("writing containerd's registry config: %w", err)
	}
	if err := os.WriteFile(filepath.Join(d, "hosts.toml"), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing containerd's registry config: %w", err)
	}
	return nil
}
