package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"time"
)

// NodeName is the node's name and, given as --hostname-override, its
// InternalIP: the kubelet rejects a loopback --node-ip.
const NodeName = "127.0.0.1"

const serviceIP = "10.96.0.1"

// Housekeeping is how often the kubelet's cAdvisor refreshes a container's
// counters. The kubelet's default, 10 s (backing off to 15 s), is longer
// than the windows a lab measures: a 6 s run between two refreshes showed
// 25 of its ~60 CFS periods and a third of its CPU. What reading the
// cgroups every second costs the kubelet was not measured apart.
const Housekeeping = time.Second

// Options say how Up builds the cluster.
type Options struct {
	Dir string // the cluster's directory (required); everything it writes lives here
	// Hyperkube is the binary running the Kubernetes programs; default the
	// cached one (authbench lab install --only hyperkube).
	Hyperkube string
	// Supervisor is the argv prefix that runs this package's Supervise(dir)
	// (PID 1 of the namespace); default the current executable with
	// SupervisorArg, which the program's main must route to Supervise.
	Supervisor []string
	Images     []string // OCI layout tarballs imported into containerd before Up returns
	PauseImage string   // reference of the sandbox image (one of Images); default image's pause
	Detach     bool     // outlive the calling process (a lab); default false: killed with it
	// APIServerArgs are added to kube-apiserver's flags, e.g. the lab's
	// --oidc-issuer-url=KEYCLOAK_REALM --oidc-client-id=authbench
	// --oidc-ca-file=... --oidc-username-claim=preferred_username
	// --oidc-username-prefix=- so that Keycloak tokens pass TokenReview.
	APIServerArgs []string
	Timeout       time.Duration // default 3m
	Out           io.Writer     // progress lines; default io.Discard
}

// Ports are the cluster's loopback ports, chosen free at Up.
type Ports struct {
	Etcd, EtcdPeer, APIServer, ControllerManager, Scheduler, Kubelet, KubeletHealthz int
}

// paths of a cluster directory.
type paths struct{ dir string }

func (p paths) pki(f string) string       { return filepath.Join(p.dir, "pki", f) }
func (p paths) log(c string) string       { return filepath.Join(p.dir, "logs", c+".log") }
func (p paths) state() string             { return filepath.Join(p.dir, "cluster.json") }
func (p paths) spec() string              { return filepath.Join(p.dir, "supervisor.json") }
func (p paths) kubeconfig() string        { return filepath.Join(p.dir, "kubeconfig") }
func (p paths) hostRun() string           { return filepath.Join(p.dir, "root", "run") }
func (p paths) readyMark(c string) string { return filepath.Join(p.dir, "ready", c) }

// id is a short hash of the directory naming the cluster's host-side
// objects (cgroup root, bridge), so that clusters in other directories
// are never touched.
func id(dir string) string {
	abs, _ := filepath.Abs(dir)
	s := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(s[:])[:8]
}

// CgroupRoot is the cluster's cgroup (under each hierarchy's root).
func CgroupRoot(dir string) string { return "authbench-kube-" + id(dir) }

// Bridge is the CNI bridge's interface name (at most 15 characters).
func Bridge(dir string) string { return "abk" + id(dir) }
