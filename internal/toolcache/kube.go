package toolcache

import (
	"context"
	"github.com/authbench/authbench/pkg/stacks"
	"io"
	"strings"
)

// HyperkubeName is the cached multi-call binary that runs the Kubernetes
// node and control-plane programs: `hyperkube kube-apiserver FLAGS...`,
// likewise kube-controller-manager, kube-scheduler and kubelet. Called
// through its kube-apiserver alias it is the process lab's API server.
const HyperkubeName = "hyperkube"

// HyperkubePrograms are the programs the hyperkube binary runs.
var HyperkubePrograms = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet"}

const kubeRBACProxyModule = "github.com/brancz/kube-rbac-proxy"

// kubeWrapper is the one wrapper module of hyperkube and kube-rbac-proxy.
// Kubernetes is compiled once for both: kube-rbac-proxy is built on the
// same build list (its k8s.io libraries at hyperkube's staging release), so
// its build reuses hyperkube's compiled packages instead of compiling a
// second, slightly different set.
func kubeWrapper() Wrapper {
	return Wrapper{
		Name:     "kube",
		Requires: []Require{{"k8s.io/kubernetes", KubeVersion}, {kubeRBACProxyModule, KubeRBACProxyVersion}},
		// k8s.io/kubernetes requires its staging modules at v0.0.0 and
		// replaces them with ./staging paths, which a dependency cannot
		// use: every one must be replaced by its published release.
		// kube-rbac-proxy's own go.mod also moves gopkg.in/square/go-jose.v2
		// to github.com/go-jose/go-jose; that is left out on purpose: its
		// jwt package then names the new import path, and Kubernetes'
		// pkg/serviceaccount no longer compiles (kube-rbac-proxy itself
		// never imports the module).
		Replaces:   stagingReplaces(),
		MainSource: hyperkubeMain,
		Keep:       []string{kubeRBACProxyModule + "/cmd/kube-rbac-proxy"},
	}
}

// hyperkubeTool builds the four programs as one binary: they share most of
// their packages, so one link costs far less than four (the historical
// hyperkube), and the stamp/lock/progress machinery of single-binary tools
// applies unchanged.
func hyperkubeTool() Tool {
	return Tool{
		Name: HyperkubeName, Version: KubeVersion, Module: "k8s.io/kubernetes", Target: ".",
		Wrapper: kubeWrapper(), Aliases: []string{"kube-apiserver"},
		LDFlags: []string{
			"-X k8s.io/component-base/version.gitVersion=" + KubeVersion,
			"-X k8s.io/component-base/version.gitMajor=1",
			"-X k8s.io/component-base/version.gitMinor=32",
			"-X k8s.io/component-base/version.gitTreeState=clean",
			"-X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z",
		},
		VersionArgs: []string{"kubelet", "--version"}, VersionWant: "Kubernetes " + KubeVersion,
	}
}

func kubeRBACProxyTool() Tool {
	return Tool{
		Name: stacks.ProgramKubeRBACProxy, Version: KubeRBACProxyVersion, Module: kubeRBACProxyModule,
		Target: kubeRBACProxyModule + "/cmd/kube-rbac-proxy", Wrapper: kubeWrapper(),
		LDFlags: []string{
			"-X k8s.io/component-base/version.gitVersion=" + KubeRBACProxyVersion,
			"-X k8s.io/component-base/version/verflag.programName=kube-rbac-proxy",
		},
		VersionArgs: []string{"--version"}, VersionWant: "kube-rbac-proxy " + KubeRBACProxyVersion,
	}
}

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

// hyperkubeMain mirrors the four upstream cmd/NAME/NAME.go mains, choosing
// by the first argument (or the program's own name, for a symlink).
const hyperkubeMain = `package main

import (
	"fmt"
	"os"
	"path/filepath"
	_ "time/tzdata"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

var programs = map[string]func() *cobra.Command{
	"kube-apiserver":          apiserver.NewAPIServerCommand,
	"kube-controller-manager": kcm.NewControllerManagerCommand,
	"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
	"kubelet":                 kubelet.NewKubeletCommand,
}

func main() {
	if cmd, ok := programs[filepath.Base(os.Args[0])]; ok {
		os.Exit(cli.Run(cmd()))
	}
	if len(os.Args) > 1 {
		if cmd, ok := programs[os.Args[1]]; ok {
			os.Args = os.Args[1:]
			os.Exit(cli.Run(cmd()))
		}
	}
	fmt.Fprintln(os.Stderr, "usage: hyperkube kube-apiserver|kube-controller-manager|kube-scheduler|kubelet [flags]")
	os.Exit(2)
}
`

// KubeAptGroup is the Debian packages of the kube lab's node: the container
// runtime, its OCI runtime and CNI plugins (etcd comes with the apt step).
func KubeAptGroup() AptGroup {
	return AptGroup{Step: "kube-apt", Packages: []string{"containerd", "runc", "containernetworking-plugins", "etcd-server"}}
}

// kubeSteps are the kube lab's install steps beyond the Go tools: its
// Debian packages.
func kubeSteps(in *installer) []step {
	g := KubeAptGroup()
	apt := step{
		name: g.Step, system: true, verb: "installing",
		probe: func(ctx context.Context) (string, bool, string, error) {
			missing, err := missingPackages(ctx, g.Packages)
			if err != nil || len(missing) > 0 {
				return "", false, "missing packages " + strings.Join(missing, " "), err
			}
			return strings.Join(g.Packages, " "), true, "", nil
		},
		install: func(ctx context.Context, s stepLog, log io.Writer) (string, error) {
			return in.aptInstall(ctx, g, s, log)
		},
	}
	return []step{apt}
}
