package toolcache

import (
	"context"
	"io"
	"strings"
)

// HyperkubeName is the cached multi-call binary that runs the Kubernetes
// node and control-plane programs: `hyperkube kube-apiserver FLAGS...`,
// likewise kube-controller-manager, kube-scheduler and kubelet.
const HyperkubeName = "hyperkube"

// KubeVersion is the Kubernetes release of the kube lab's cluster.
const KubeVersion = KubeAPIServerVersion

// HyperkubePrograms are the programs the hyperkube binary runs.
var HyperkubePrograms = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet"}

// hyperkubeTool builds the four programs as one binary in one wrapper
// module: they share most of their packages, so one link costs far less
// than four (the historical hyperkube), and the stamp/lock/progress
// machinery of single-binary tools applies unchanged.
func hyperkubeTool() Tool {
	api, _ := lookupToolIn(baseTools(), "kube-apiserver")
	return Tool{
		Name: HyperkubeName, Version: KubeVersion,
		Module: "k8s.io/kubernetes", Package: "k8s.io/kubernetes/cmd/kubelet/app",
		Replaces: stagingReplaces(), MainSource: hyperkubeMain, LDFlags: api.LDFlags,
		VersionArgs: []string{"kubelet", "--version"}, VersionWant: "Kubernetes " + KubeVersion,
	}
}

func lookupToolIn(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
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

// kubeSteps are the kube lab's install steps: its Debian packages, then
// the hyperkube build (after kube-apiserver's, whose packages it reuses).
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
