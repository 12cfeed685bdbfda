package stacks

import (
	"bytes"
	"embed"
	"fmt"
	"path/filepath"
	"strconv"
	"text/template"
	"time"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// templates are parsed once: a template that does not parse is a bug
// caught by every test of this package.
var templates = template.Must(template.New("").Option("missingkey=error").ParseFS(templateFS, "templates/*.tmpl"))

// Config names: each is one template, templates/NAME.tmpl, rendered on
// every platform from its parameters.
const (
	ConfigRouter      = "haproxy.cfg"
	ConfigGateway     = "envoy.yaml"
	ConfigRBACProxy   = "kube-rbac-proxy.yaml"
	ConfigKubeconfig  = "kubeconfig"
	ConfigAuditPolicy = "audit-policy.yaml"
	ConfigEDS         = "envoy-eds.yaml"
)

// TLSFiles are where a server finds its certificate, key (also both in one
// Bundle, for HAProxy) and the CA its upstreams' certificates chain to:
// the lab's files, or a Secret mounted in a pod.
type TLSFiles struct{ Cert, Key, Bundle, CA string }

// TLSFiles are the lab's certificates as a server's files.
func (c Certs) TLSFiles() TLSFiles {
	return TLSFiles{Cert: c.Server, Key: c.ServerKey, Bundle: c.ServerBundle, CA: c.CA}
}

// Router is HAProxy playing the OpenShift router serving stack 2x's Route.
type Router struct {
	// Route ("NAMESPACE/NAME") and Termination describe the Route it is
	// rendered from.
	Route, Termination string
	// Listen is its TLS address; Backend names its backend and Server is
	// the address of the oauth proxy the Route points at.
	Listen, Backend, Server string
	// RuntimeSocket, when set, is the runtime API's socket, and the
	// backend gets server-template slots BACKEND-2 ... BACKEND-MaxReplicas
	// (ReplicaSlot) that `lab scale` fills without a reload. Empty: none.
	RuntimeSocket string
	TLS           TLSFiles
	// Metrics is the address of HAProxy's Prometheus exporter (/metrics).
	Metrics string
}

// ReplicaSlots is the last server-template slot: one per replica.
func (Router) ReplicaSlots() int { return MaxReplicas }

// ReplicaSlot names the backend's server of replica i (from 2).
func (r Router) ReplicaSlot(i int) string { return r.Backend + "-" + strconv.Itoa(i) }

// Gateway is Envoy as a 3x stack's Gateway API gateway: the HTTPRoute to
// Backend (the kube-rbac-proxy sidecar, over TLS) behind HTTP ext_authz to
// ExtAuthz (over TLS when ExtAuthzTLS), its admin interface on Admin.
type Gateway struct {
	Name, Stack string
	// Route ("NAMESPACE/NAME") is the HTTPRoute it is rendered from, if any.
	Route      string
	PathPrefix string
	// Listen is its TLS address; Admin its admin interface (always on
	// 127.0.0.1: only the port is used).
	Listen, Admin, ExtAuthz, Backend Endpoint
	// MoreExtAuthz and MoreBackends are the replicas beyond the first of
	// the ext_authz service and of the sidecar (`lab scale`): Envoy
	// balances round robin across them and the first. Empty by default.
	MoreExtAuthz, MoreBackends []Endpoint
	ExtAuthzTLS                bool
	// Timeout and FailureMode are the ext_authz call's (validated).
	Timeout     time.Duration
	FailureMode AuthzFailureMode
	TLS         TLSFiles
	// AccessLog is where Envoy writes the ladder's lines.
	AccessLog string
	// EDSDir, when set, is the directory of the files the ext_authz and
	// backend clusters take their endpoints from (EDSFiles), which Envoy
	// watches: `lab scale` rewrites them without a restart. Empty (a
	// cluster's config): the endpoints are inline.
	EDSDir string
}

// EDSSource is where a cluster's endpoints file is, for the template.
type EDSSource struct{ File, Dir string }

// EDSSource names cluster's endpoints file under EDSDir.
func (g Gateway) EDSSource(cluster string) EDSSource {
	return EDSSource{File: filepath.Join(g.EDSDir, cluster+".yaml"), Dir: g.EDSDir}
}

// ClusterEndpoints are one cluster's endpoints as an EDS file.
type ClusterEndpoints struct {
	Cluster   string
	Endpoints []Endpoint
	// Version is the response's version_info.
	Version int
}

// EDSFiles are the gateway's endpoints files (with EDSDir set), by path:
// the ext_authz service's replicas and the backend's.
func (g Gateway) EDSFiles(version int) map[string]ClusterEndpoints {
	return map[string]ClusterEndpoints{
		g.EDSSource(EnvoyClusterExtAuthz).File: {Cluster: EnvoyClusterExtAuthz, Endpoints: append([]Endpoint{g.ExtAuthz}, g.MoreExtAuthz...), Version: version},
		g.EDSSource(EnvoyClusterBackend).File:  {Cluster: EnvoyClusterBackend, Endpoints: append([]Endpoint{g.Backend}, g.MoreBackends...), Version: version},
	}
}

// AuthzTimeout is the ext_authz timeout as Envoy's duration ("0.2s").
func (g Gateway) AuthzTimeout() string {
	return strconv.FormatFloat(g.Timeout.Seconds(), 'f', -1, 64) + "s"
}

// FailureModeAllow is Envoy's failure_mode_allow.
func (g Gateway) FailureModeAllow() bool { return g.FailureMode == AuthzFailAllow }

// The names the template uses from this package's constants.
func (Gateway) StatPrefix() string      { return EnvoyStatPrefix }
func (Gateway) ExtAuthzCluster() string { return EnvoyClusterExtAuthz }
func (Gateway) BackendCluster() string  { return EnvoyClusterBackend }
func (Gateway) DetailsHeader() string   { return GatewayDetailsHeader }
func (Gateway) LogFormat() string       { return EnvoyHopLogFormat }

// RBACProxyAuthz is kube-rbac-proxy's authorization config: a
// SubjectAccessReview for "VERB services/proxy EchoService" in Namespace.
type RBACProxyAuthz struct{ Namespace, EchoService string }

// Kubeconfig is a proxy identity's kubeconfig; the token stays in its file.
type Kubeconfig struct{ Server, CA, User, TokenFile string }

// AuditPolicy is the kube-apiserver's audit policy (no parameters).
type AuditPolicy struct{}

// Render executes templates/NAME.tmpl with data (one of the types above).
func Render(name string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name+".tmpl", data); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// RenderTo renders a config into file (mode 0600: configs name secrets'
// paths and some hold keys' paths; nothing else needs to read them).
func RenderTo(file, name string, data any) error {
	b, err := Render(name, data)
	if err != nil {
		return err
	}
	return writeFileAtomic(file, b, 0o600)
}

// ConfPath is DIR/conf/NAME, where a lab's rendered configs go.
func ConfPath(dir, name string) string { return filepath.Join(dir, "conf", name) }
