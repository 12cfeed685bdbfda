package kube

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
	"github.com/authbench/authbench/pkg/stacks"
)

// plays is what a pod component plays on the kube lab: the catalog's
// Plays, and where its config comes from or whose sidecar it is.
func plays(c stacks.Component) string {
	if c.Plays == "" {
		return ""
	}
	switch {
	case c.RenderedFrom != "":
		return c.Plays + ", rendered from the " + c.RenderedFrom + " object"
	case c.Deployment != c.Name:
		return c.Plays + ", a sidecar of " + c.Deployment
	}
	return c.Plays
}

// components builds the state's components of the configured stacks:
// each pod's container with its entry point, Deployment, image and the
// version its program reports (versions, by image name; else the image's
// tag), then the cluster and Keycloak, which no scenario samples.
func components(names []string, ports map[string]int, refs, versions map[string]string, apiserver int, kcURL string) []lab.ComponentInfo {
	var out []lab.ComponentInfo
	for _, st := range names {
		for _, c := range stacks.Components(st) {
			ci := lab.ComponentInfo{Name: c.Name, Stack: c.Stack, Role: c.Role, Program: c.Program, Plays: plays(c)}
			ci.Namespace, ci.Pod, ci.Container = manifests.DefaultNamespace, c.Deployment+"-.*", c.Container
			ci.Workload = fmt.Sprintf("Deployment %s/%s, container %s", ci.Namespace, c.Deployment, c.Container)
			ci.URL = fmt.Sprintf("%s://127.0.0.1:%d%s", c.Scheme, ports[ci.Name], stacks.EchoPath)
			ci.Version = versions[c.Program]
			if ci.Version == "" {
				ci.Version = tagOf(refs[c.Program])
			}
			ci.Exe = refs[c.Program]
			out = append(out, ci)
		}
	}
	api := stacks.APIServerComponent
	out = append(out, lab.ComponentInfo{Name: api.Name, Stack: api.Stack, Role: api.Role, Program: api.Program,
		Plays: api.Plays, Version: toolcache.KubeVersion, URL: "https://127.0.0.1:" + strconv.Itoa(apiserver)})
	if kcURL != "" {
		kc := stacks.KeycloakComponent
		out = append(out, lab.ComponentInfo{Name: kc.Name, Stack: kc.Stack, Role: kc.Role,
			Program: kc.Program, Version: keycloakVersion(), URL: kcURL})
	}
	for i := range out {
		out[i].Status = lab.StatusRunning
	}
	return out
}

// keycloakVersion reads VERSION from the cached tool's .../keycloak-VERSION/bin/kc.sh.
func keycloakVersion() string {
	p, err := toolcache.ToolPath(stacks.ProgramKeycloak)
	if err != nil {
		return ""
	}
	v, _ := strings.CutPrefix(filepath.Base(filepath.Dir(filepath.Dir(p))), stacks.ProgramKeycloak+"-")
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
func targets(names []string, comps []lab.ComponentInfo) []lab.StackTarget {
	url := map[string]string{}
	for _, c := range comps {
		url[c.Name] = c.URL
	}
	var out []lab.StackTarget
	for _, name := range names {
		st, _ := stacks.Get(name)
		t := lab.StackTarget{Name: st.Target, Stack: name}
		for _, l := range st.Layers() {
			t.Layers = append(t.Layers, lab.Rung{Layer: l, URL: url[l]})
		}
		t.URL = t.Layers[0].URL
		out = append(out, t)
	}
	return out
}

// notes say which real component plays which role, and where each runs.
func notes(comps []lab.ComponentInfo, names []string) []string {
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
	out = append(out, "kube lab: a single-node Kubernetes "+toolcache.KubeVersion+" (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd, kubelet) in a private PID + mount namespace; Keycloak and the fault proxy (Toxiproxy) run outside the cluster, in the same namespace; the auth pods reach the kube-apiserver (KUBERNETES_SERVICE_HOST/PORT) and Keycloak through the fault proxy's links; pods are sampled through Prometheus scraping the kubelet's cAdvisor")
	if has(names, stacks.Stack2x) {
		out = append(out, "stack 2x: static bearer tokens from the kube-apiserver's --token-auth-file play OpenShift OAuth tokens")
	}
	for _, gw := range []struct{ stack, name string }{{stacks.Stack3x, stacks.Envoy}, {stacks.Stack3xOAuth, stacks.EnvoyOAuth}} {
		if has(names, gw.stack) {
			out = append(out, stacks.GatewayNote(gw.name))
		}
	}
	if has(names, stacks.Stack3xOAuth) {
		out = append(out, fmt.Sprintf("stack 3x-oauth: authbench's kube-auth-proxy stand-in is the ext_authz service (Deployment %s, envoy-oauth's ext_authz over TLS), "+
			"in front of its %s container answering 200; the %s sidecar then reviews and authorises the token again (kube-rbac-proxy, caches: %s; its API client at %d QPS, burst %d)",
			stacks.KubeAuthProxyOAuth, stacks.AuthzOKOAuth, stacks.KubeRBACProxyOAuth, stacks.KubeRBACProxyCache,
			stacks.KubeAPIQPS, stacks.KubeAPIBurst))
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

// standinNotes state what each stand-in does per request, with the lab's
// what-ifs.
func standinNotes(cfg lab.Config, comps []lab.ComponentInfo) []string {
	var out []string
	for _, c := range comps {
		if b, ok := cfg.Standin(c.Name); ok {
			out = append(out, c.Name+": "+b.Describe())
		}
	}
	return out
}
