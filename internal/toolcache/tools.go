package toolcache

import (
	"slices"

	"github.com/authbench/authbench/pkg/stacks"
)

// Tool is a pinned Go program built from the module proxy through a wrapper
// module (see Wrapper): `go build Target` inside it.
type Tool struct {
	Name    string // binary name, cache key and step name
	Version string // pinned version, also the cache key
	Module  string // the module whose release Version is
	// Target is what go build builds inside the wrapper: a main package,
	// or "." for the wrapper's own main.go.
	Target  string
	Wrapper Wrapper
	LDFlags []string // -X flags stamping the version into the binary
	// Aliases are further names of the binary in its bin/ directory
	// (symlinks): a multi-call binary runs the program it is called as.
	Aliases []string
	// VersionArgs make the binary print a line containing VersionWant.
	VersionArgs []string
	VersionWant string
	Optional    bool // installed only when asked for by name
}

// Wrapper is the throw-away module a tool is built in: a go.mod requiring
// Requires (plus Replaces), a main.go when MainSource is set, and a tools.go
// importing Keep so that go mod tidy keeps those packages' modules. Tools
// built in identical wrappers share one build list, so the Go build cache
// compiles their common packages once.
type Wrapper struct {
	Name     string // the module is authbench.local/wrap/NAME
	Requires []Require
	Replaces []Replace
	// MainSource, when set, is the wrapper's main.go; used where the
	// upstream main package cannot be built from a module (Kubernetes).
	MainSource string
	Keep       []string
}

// Require is one requirement of a wrapper go.mod.
type Require struct{ Module, Version string }

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
	// KubeVersion is the Kubernetes release of hyperkube, which runs the
	// kube lab's cluster and, as kube-apiserver, the process lab's API server.
	KubeVersion = "v1.32.2"
	// KubeAPIServerVersion is the process lab's kube-apiserver: hyperkube's.
	KubeAPIServerVersion = KubeVersion
	// k8sStagingVersion is the k8s.io/* staging release matching KubeVersion.
	k8sStagingVersion = "v0.32.2"
)

// Tools lists the pinned Go tools in build order: small ones first, so a
// fresh machine has them minutes before hyperkube, and kube-rbac-proxy
// after hyperkube, whose compiled packages it reuses; the optional
// registry last.
func Tools() []Tool {
	return []Tool{httpEchoTool(), toxiproxyTool(), oauth2ProxyTool(), hyperkubeTool(), kubeRBACProxyTool(), registryTool()}
}

// single is the wrapper of a tool built alone: it requires the tool's
// module and keeps its main package.
func single(name, module, version, target string, replaces ...Replace) Wrapper {
	return Wrapper{Name: name, Requires: []Require{{module, version}}, Replaces: replaces, Keep: []string{target}}
}

func httpEchoTool() Tool {
	const m = "github.com/hashicorp/http-echo"
	return Tool{
		Name: stacks.ProgramHTTPEcho, Version: HTTPEchoVersion, Module: m, Target: m,
		Wrapper: single(stacks.ProgramHTTPEcho, m, HTTPEchoVersion, m),
		LDFlags: []string{
			"-X " + m + "/version.Version=" + HTTPEchoVersion[1:],
			"-X " + m + "/version.GitCommit=" + HTTPEchoVersion,
		},
		VersionArgs: []string{"-version"}, VersionWant: "http-echo " + HTTPEchoVersion,
	}
}

func oauth2ProxyTool() Tool {
	const m = "github.com/oauth2-proxy/oauth2-proxy/v7"
	return Tool{
		Name: stacks.ProgramOAuth2Proxy, Version: OAuth2ProxyVersion, Module: m, Target: m,
		Wrapper:     single(stacks.ProgramOAuth2Proxy, m, OAuth2ProxyVersion, m),
		LDFlags:     []string{"-X " + m + "/pkg/version.VERSION=" + OAuth2ProxyVersion},
		VersionArgs: []string{"--version"}, VersionWant: "oauth2-proxy " + OAuth2ProxyVersion,
	}
}

func lookupTool(name string) (Tool, bool) {
	for _, t := range Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// toolFor finds the tool providing a program: the tool of that name, or
// the one whose binary answers to it as an alias.
func toolFor(program string) (Tool, bool) {
	for _, t := range Tools() {
		if t.Name == program || slices.Contains(t.Aliases, program) {
			return t, true
		}
	}
	return Tool{}, false
}
