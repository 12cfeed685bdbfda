package kubeplatform

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/toolcache"
	"github.com/authbench/authbench/pkg/kube/manifests"
	"github.com/authbench/authbench/pkg/lab"
)

// component is one of the lab's components: its record, and the image it
// runs (empty for those outside the cluster).
type component struct {
	info   lab.ComponentInfo
	image  string
	scheme string // of its own entry point
}

// stackComponents are the pods' components, named as on the processes
// platform, with what each plays.
var stackComponents = map[string][]component{
	lab.Stack2x: {
		{lab.ComponentInfo{Name: lab.CompHAProxy, Stack: lab.Stack2x, Role: "route", Program: "haproxy",
			Plays: "an OpenShift Route (router HAProxy, edge TLS termination), rendered from the Route object"}, "haproxy", "https"},
		{lab.ComponentInfo{Name: lab.CompOAuthProxy, Stack: lab.Stack2x, Role: "oauth-proxy", Program: "kube-rbac-proxy",
			Plays: "openshift/oauth-proxy (TokenReview + SubjectAccessReview with caching), a sidecar of http-echo-2x"}, "kube-rbac-proxy", "https"},
		{lab.ComponentInfo{Name: lab.CompEcho2x, Stack: lab.Stack2x, Role: "backend", Program: "http-echo"}, "http-echo", "http"},
	},
	lab.Stack3x: {
		{lab.ComponentInfo{Name: lab.CompNginx, Stack: lab.Stack3x, Role: "gateway", Program: "nginx",
			Plays: "Envoy (Gateway API gateway with HTTP ext_authz), rendered from the HTTPRoute object"}, "nginx", "https"},
		{lab.ComponentInfo{Name: lab.CompOAuth2Proxy, Stack: lab.Stack3x, Role: "ext-authz", Program: "oauth2-proxy",
			Plays: "kube-auth-proxy (its upstream; OIDC JWT verification as ext_authz)"}, "oauth2-proxy", "http"},
		{lab.ComponentInfo{Name: lab.CompKubeRBACProxy, Stack: lab.Stack3x, Role: "rbac-proxy", Program: "kube-rbac-proxy"}, "kube-rbac-proxy", "https"},
		{lab.ComponentInfo{Name: lab.CompEcho3x, Stack: lab.Stack3x, Role: "backend", Program: "http-echo"}, "http-echo", "http"},
	},
	lab.Stack3xOAuth: {
		{lab.ComponentInfo{Name: lab.CompNginxOAuth, Stack: lab.Stack3xOAuth, Role: "gateway", Program: "nginx",
			Plays: "Envoy (Gateway API gateway with HTTP ext_authz to kube-auth-proxy over TLS), rendered from the HTTPRoute object"}, "nginx", "https"},
		{lab.ComponentInfo{Name: lab.CompKubeAuthProxyOAuth, Stack: lab.Stack3xOAuth, Role: "ext-authz", Program: "kube-rbac-proxy",
			Plays: "kube-auth-proxy (OpenShift OAuth mode, ext_authz: TokenReview + SubjectAccessReview per bearer token; " + lab.KubeRBACProxyCache + ")"}, "kube-rbac-proxy", "https"},
		{lab.ComponentInfo{Name: lab.CompAuthzOKOAuth, Stack: lab.Stack3xOAuth, Role: authzUpstream, Program: "http-echo",
			Plays: "kube-auth-proxy's --upstream=static://200 (a 200 for every request the ext_authz service lets through), a sidecar of kube-auth-proxy-oauth"}, "http-echo", "http"},
		{lab.ComponentInfo{Name: lab.CompKubeRBACProxyOAuth, Stack: lab.Stack3xOAuth, Role: "rbac-proxy", Program: "kube-rbac-proxy"}, "kube-rbac-proxy", "https"},
		{lab.ComponentInfo{Name: lab.CompEcho3xOAuth, Stack: lab.Stack3xOAuth, Role: "backend", Program: "http-echo"}, "http-echo", "http"},
	},
}

// authzUpstream is the role of the ext_authz service's own upstream: a
// component, not a layer of the stack's target (as on the processes
// platform).
const authzUpstream = "authz-upstream"

// components builds the state's components of the configured stacks:
// each pod's container with its entry point, Deployment and image tag,
// then the cluster and Keycloak, which no scenario samples.
func components(stacks []string, ports map[string]int, refs map[string]string, apiserver int, kcURL string) []lab.ComponentInfo {
	var out []lab.ComponentInfo
	for _, st := range stacks {
		for _, c := range stackComponents[st] {
			ci := c.info
			d, ctr, _ := manifests.Workload(ci.Name)
			ci.Namespace, ci.Pod, ci.Container = manifests.DefaultNamespace, d+"-.*", ctr
			ci.Workload = fmt.Sprintf("Deployment %s/%s, container %s", ci.Namespace, d, ctr)
			ci.URL = fmt.Sprintf("%s://127.0.0.1:%d%s", c.scheme, ports[ci.Name], lab.EchoPath)
			ci.Version = tagOf(refs[c.image])
			ci.Exe = refs[c.image]
			out = append(out, ci)
		}
	}
	out = append(out, lab.ComponentInfo{Name: lab.CompAPIServer, Stack: lab.StackShared, Role: "kube-apiserver",
		Program: "kube-apiserver", Plays: "the OpenShift API server and OAuth token authority",
		Version: toolcache.KubeVersion, URL: "https://127.0.0.1:" + strconv.Itoa(apiserver)})
	if kcURL != "" {
		out = append(out, lab.ComponentInfo{Name: lab.CompKeycloak, Stack: lab.Stack3x, Role: "oidc-provider",
			Program: "keycloak", Version: keycloakVersion(), URL: kcURL})
	}
	for i := range out {
		out[i].Status = "running"
	}
	return out
}

// keycloakVersion reads VERSION from the cached tool's .../keycloak-VERSION/bin/kc.sh.
func keycloakVersion() string {
	p, err := toolcache.ToolPath("keycloak")
	if err != nil {
		return ""
	}
	v, _ := strings.CutPrefix(filepath.Base(filepath.Dir(filepath.Dir(p))), "keycloak-")
	return v
}

func tagOf(ref string) string {
	if i := strings.LastIndex(ref, ":"); i >= 0 && !strings.Contains(ref[i:], "/") {
		return ref[i+1:]
	}
	return ""
}

// targets describes each stack as a target: its outer URL and its layers
// from the client inwards, each at its own hostNetwork entry point.
func targets(stacks []string, comps []lab.ComponentInfo) []lab.StackTarget {
	url := map[string]string{}
	for _, c := range comps {
		url[c.Name] = c.URL
	}
	var out []lab.StackTarget
	for _, st := range stacks {
		t := lab.StackTarget{Name: lab.TargetName(st), Stack: st}
		for _, c := range stackComponents[st] {
			if c.info.Role != authzUpstream {
				t.Layers = append(t.Layers, lab.Rung{Layer: c.info.Name, URL: url[c.info.Name]})
			}
		}
		t.URL = t.Layers[0].URL
		out = append(out, t)
	}
	return out
}

// notes say which real component plays which role, and where each runs.
func notes(comps []lab.ComponentInfo, stacks []string) []string {
	var out []string
	for _, c := range comps {
		if c.Plays != "" {
			out = append(out, fmt.Sprintf("%s: %s %s plays %s", c.Name, c.Program, c.Version, c.Plays))
		}
	}
	for _, c := range comps {
		if c.Namespace != "" {
			d, ctr, _ := manifests.Workload(c.Name)
			out = append(out, fmt.Sprintf("%s: Deployment %s/%s, container %s (hostNetwork %s)", c.Name, c.Namespace, d, ctr, c.URL))
		}
	}
	out = append(out, "kube lab: a single-node Kubernetes "+toolcache.KubeVersion+" (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd, kubelet) in a private PID + mount namespace; Keycloak runs outside the cluster, in the same namespace; pods are sampled through Prometheus scraping the kubelet's cAdvisor")
	if has(stacks, lab.Stack2x) {
		out = append(out, "stack 2x: static bearer tokens from the kube-apiserver's --token-auth-file play OpenShift OAuth tokens")
	}
	if has(stacks, lab.Stack3xOAuth) {
		out = append(out, fmt.Sprintf("stack 3x-oauth: kube-auth-proxy cannot be built from the module mirror, so kube-rbac-proxy plays it "+
			"as the ext_authz service (Deployment %s, nginx-oauth's auth_request over TLS), in front of its %s container answering 200; "+
			"it validates the opaque sha256~ token (the kube-apiserver's --token-auth-file) with a TokenReview and authorises it with a "+
			"SubjectAccessReview, then the %s sidecar does both again. Caches (both proxies): %s. Their API clients run at %d QPS, burst %d, "+
			"instead of client-go's 5/10, so that cache misses measure the API server",
			lab.CompKubeAuthProxyOAuth, lab.CompAuthzOKOAuth, lab.CompKubeRBACProxyOAuth, lab.KubeRBACProxyCache,
			manifests.KubeAPIQPS, manifests.KubeAPIBurst))
	}
	return out
}

// podLog is the newest log file of the Deployment's container, where the
// kubelet writes it: under the cluster's /var overlay, as
// log/pods/NAMESPACE_POD_UID/CONTAINER/N.log (the ladder reads the
// gateway's per-request timings there).
func podLog(dir string, c lab.ComponentInfo) string {
	d, ctr, ok := manifests.Workload(c.Name)
	if !ok || c.Namespace == "" {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(ClusterDir(dir), "root", "var-upper", "log", "pods",
		c.Namespace+"_"+d+"-*_*", ctr, "*.log"))
	newest, at := "", time.Time{}
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(at) {
			newest, at = p, fi.ModTime()
		}
	}
	return newest
}

// setLogs points each pod component at its running container's log.
func setLogs(dir string, cs []lab.ComponentInfo) {
	for i := range cs {
		if l := podLog(dir, cs[i]); l != "" {
			cs[i].Log = l
		}
	}
}
