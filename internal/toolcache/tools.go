package toolcache

// Tool is a pinned Go program built from the module proxy through a wrapper
// module: a go.mod requiring Module@Version (plus Replaces), and either a
// tools.go importing Package (built as `go build PKG`) or, when MainSource is
// set, a main.go of our own (built as `go build .`).
type Tool struct {
	Name     string // binary name, cache key and step name
	Version  string // pinned version, also the cache key
	Module   string // module the wrapper requires at Version
	Package  string // main package to build, or the package MainSource imports
	Replaces []Replace
	// MainSource, when set, is the wrapper's main.go; used where the
	// upstream main package cannot be built from a module (kube-apiserver).
	MainSource string
	LDFlags    []string // -X flags stamping the version into the binary
	// VersionArgs make the binary print a line containing VersionWant.
	VersionArgs []string
	VersionWant string
	Optional    bool // installed only when asked for by name
}

// Replace is one replace directive of a wrapper go.mod.
type Replace struct{ Old, New, Version string }

// The pinned versions the lab is built and tested against. The project's
// module mirror serves only some versions: it refuses oauth2-proxy v7.9+ and
// kube-rbac-proxy v0.20+, and every version of openshift/oauth-proxy, whose
// role kube-rbac-proxy therefore plays.
const (
	HTTPEchoVersion      = "v1.0.0"
	OAuth2ProxyVersion   = "v7.8.1"
	KubeRBACProxyVersion = "v0.19.1"
	KubeAPIServerVersion = "v1.32.2"
	// k8sStagingVersion is the k8s.io/* staging release matching KubeAPIServerVersion.
	k8sStagingVersion = "v0.32.2"
)

// Tools lists the pinned Go tools in build order (fast ones first, so a
// fresh machine has the small tools minutes before kube-apiserver).
func Tools() []Tool {
	return append(baseTools(), hyperkubeTool())
}

func baseTools() []Tool {
	return []Tool{
		{
			Name: "http-echo", Version: HTTPEchoVersion,
			Module: "github.com/hashicorp/http-echo", Package: "github.com/hashicorp/http-echo",
			LDFlags: []string{
				"-X github.com/hashicorp/http-echo/version.Version=" + HTTPEchoVersion[1:],
				"-X github.com/hashicorp/http-echo/version.GitCommit=" + HTTPEchoVersion,
			},
			VersionArgs: []string{"-version"}, VersionWant: "http-echo " + HTTPEchoVersion,
		},
		{
			Name: "oauth2-proxy", Version: OAuth2ProxyVersion,
			Module: "github.com/oauth2-proxy/oauth2-proxy/v7", Package: "github.com/oauth2-proxy/oauth2-proxy/v7",
			LDFlags:     []string{"-X github.com/oauth2-proxy/oauth2-proxy/v7/pkg/version.VERSION=" + OAuth2ProxyVersion},
			VersionArgs: []string{"--version"}, VersionWant: "oauth2-proxy " + OAuth2ProxyVersion,
		},
		{
			Name: "kube-rbac-proxy", Version: KubeRBACProxyVersion,
			Module: "github.com/brancz/kube-rbac-proxy", Package: "github.com/brancz/kube-rbac-proxy/cmd/kube-rbac-proxy",
			// Copied from kube-rbac-proxy's own go.mod: replaces are not
			// inherited from dependencies, and the old path no longer builds.
			Replaces: []Replace{{"gopkg.in/square/go-jose.v2", "github.com/go-jose/go-jose", "v2.6.3+incompatible"}},
			LDFlags: []string{
				"-X k8s.io/component-base/version.gitVersion=" + KubeRBACProxyVersion,
				"-X k8s.io/component-base/version/verflag.programName=kube-rbac-proxy",
			},
			VersionArgs: []string{"--version"}, VersionWant: "kube-rbac-proxy " + KubeRBACProxyVersion,
		},
		{
			Name: "kube-apiserver", Version: KubeAPIServerVersion,
			Module: "k8s.io/kubernetes", Package: "k8s.io/kubernetes/cmd/kube-apiserver/app",
			// k8s.io/kubernetes requires its staging modules at v0.0.0 and
			// replaces them with ./staging paths, which a dependency cannot
			// use: every one must be replaced by its published release.
			Replaces:   stagingReplaces(),
			MainSource: kubeAPIServerMain,
			LDFlags: []string{
				"-X k8s.io/component-base/version.gitVersion=" + KubeAPIServerVersion,
				"-X k8s.io/component-base/version.gitMajor=1",
				"-X k8s.io/component-base/version.gitMinor=32",
				"-X k8s.io/component-base/version.gitTreeState=clean",
				"-X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z",
			},
			VersionArgs: []string{"--version"}, VersionWant: "Kubernetes " + KubeAPIServerVersion,
		},
	}
}

// kubeAPIServerMain mirrors k8s.io/kubernetes/cmd/kube-apiserver/apiserver.go.
const kubeAPIServerMain = `package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
`

// stagingModules are the k8s.io modules k8s.io/kubernetes v1.32 keeps in
// its staging directory.
var stagingModules = []string{
	"api", "apiextensions-apiserver", "apimachinery", "apiserver", "cli-runtime",
	"client-go", "cloud-provider", "cluster-bootstrap", "code-generator",
	"component-base", "component-helpers", "controller-manager", "cri-api",
	"cri-client", "csi-translation-lib", "dynamic-resource-allocation",
	"endpointslice", "externaljwt", "kms", "kube-aggregator",
	"kube-controller-manager", "kube-proxy", "kube-scheduler", "kubectl",
	"kubelet", "metrics", "mount-utils", "pod-security-admission",
	"sample-apiserver", "sample-cli-plugin", "sample-controller",
}

func stagingReplaces() []Replace {
	r := make([]Replace, 0, len(stagingModules))
	for _, m := range stagingModules {
		r = append(r, Replace{"k8s.io/" + m, "k8s.io/" + m, k8sStagingVersion})
	}
	return r
}

func lookupTool(name string) (Tool, bool) {
	for _, t := range Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}
