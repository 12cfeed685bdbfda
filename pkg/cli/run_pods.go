package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/cluster"
	"github.com/authbench/authbench/pkg/kube/pods"
	"github.com/authbench/authbench/pkg/lab/platform/kube"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
)

// addPodFlags adds run's flags for load from pods, for load heavier than
// one machine can send. Their values land in the plan's Execution, as a scenario's execution block
// does; the flags win over the block.
func addPodFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Int("pods", 0, "run the load from N pods of a Kubernetes Job, split and merged exactly (default: this process)")
	// Only a --kubeconfig given lands in the plan (applyPodFlags), so a
	// kube lab's own kubeconfig wins over the default.
	addKubeconfigFlag(cmd, new(string), "for --pods; a kube lab's own with --lab-dir")
	f.String("context", "", "kubeconfig context for --pods (default: its current context)")
	f.String("namespace", "", `namespace of the --pods Job (default "default")`)
	f.String("image", "", "authbench's image for --pods (default in a kube lab: this binary's, imported)")
	addPodRegistryFlags(cmd)
}

// applyPodFlags copies the --pods flags into the plan's Execution.
func applyPodFlags(cmd *cobra.Command, p *plan.Plan) error {
	f := cmd.Flags()
	if n, _ := f.GetInt("pods"); f.Changed("pods") {
		if p.Execution == nil {
			p.Execution = &plan.Execution{}
		}
		p.Execution.Pods = n
		p.Give(plan.FieldPods, "--pods")
	}
	for _, name := range []string{"kubeconfig", "context", "namespace", "image"} {
		if !f.Changed(name) {
			continue
		}
		if p.Execution == nil {
			return fmt.Errorf("--%s applies to load from pods: give --pods N (or an execution block)", name)
		}
		v, _ := f.GetString(name)
		if name == "namespace" {
			ns, err := plan.ParseNamespace(v)
			if err != nil {
				return fmt.Errorf("--namespace %q: %w", v, err)
			}
			p.Execution.Namespace = ns
			continue
		}
		*map[string]*string{"kubeconfig": &p.Execution.Kubeconfig, "context": &p.Execution.Context,
			"image": &p.Execution.Image}[name] = v
	}
	return nil
}

// podExecutor sets ro.Executor when the plan runs its load from pods.
func podExecutor(ctx context.Context, cmd *cobra.Command, ro *runner.Options, log io.Writer) error {
	if err := applyPodFlags(cmd, ro.Plan); err != nil {
		return err
	}
	x := ro.Plan.Execution
	if x == nil {
		return registryNeedsPods(cmd)
	}
	if err := ro.Plan.Ready(); err != nil {
		return err
	}
	o := pods.Options{Execution: *x, Log: log}
	if err := podRegistryImage(ctx, cmd, &o, log); err != nil {
		return err
	}
	x.Image = o.Image // run.json records the pinned image
	if err := kubeLabDefaults(ctx, labDirFlag(cmd), &o, log); err != nil {
		return err
	}
	e, err := pods.New(o)
	if err != nil {
		return err
	}
	ro.Executor = e
	if ro.Plan.Prometheus != nil {
		// The generator pods are sampled as the target's components are,
		// through cAdvisor, so their CPU and throttling sit in the run's
		// resource table beside the per-pod table's own counters.
		ro.Plan.Observe = append(ro.Plan.Observe, e.Components()...)
	}
	return nil
}

// labDirFlag is the run's lab directory flag, whichever name it has. A
// bare cluster's directory (kube cluster up --dir) is taken here and
// cleared for the lab sampler, which cannot read it; a kube lab's
// directory stays for the sampler (its Prometheus).
func labDirFlag(cmd *cobra.Command) string {
	for _, n := range []string{"lab-dir", "observe-lab"} {
		if f := cmd.Flags().Lookup(n); f != nil && f.Changed {
			dir := f.Value.String()
			if _, err := cluster.Open(dir); err == nil {
				f.Value.Set("")
			}
			return dir
		}
	}
	return ""
}

// kubeLabDefaults fills what a kube lab provides when dir holds a running
// lab cluster: its kubeconfig, this binary's image, pods on the host
// network. Explicit values stay.
func kubeLabDefaults(ctx context.Context, dir string, o *pods.Options, log io.Writer) error {
	if dir == "" {
		return nil
	}
	c, err := cluster.Open(dir) // a bare cluster: kube cluster up --dir
	labDir := ""
	if err != nil {
		if c, err = cluster.Open(kube.ClusterDir(dir)); err != nil {
			return nil // not a kube lab: the process lab has no pods
		}
		labDir = dir
	}
	if o.Kubeconfig == "" {
		o.Kubeconfig = c.Kubeconfig()
	}
	if o.HostNetwork == nil {
		on := true
		o.HostNetwork = &on
	}
	if o.Image != "" {
		return nil
	}
	ref, err := labImage(ctx, c, labDir, log)
	if err != nil {
		return err
	}
	o.Image, o.PullPolicy = ref, "Never"
	return nil
}

// labImage is this binary's image in the lab's containerd: the one lab up
// imported when its reference (which carries the binary's content hash)
// is this binary's, else built and imported now.
func labImage(ctx context.Context, c *cluster.Cluster, labDir string, log io.Writer) (string, error) {
	if labDir != "" {
		want, err := image.Ref(ctx, "authbench", image.Options{})
		if err != nil {
			return "", err
		}
		if got, err := kube.ImportedImage(labDir, "authbench"); err == nil && got == want {
			return want, nil
		}
	}
	img, _, err := image.Build(ctx, "authbench", image.Options{})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(log, "pods: importing %s into the kube lab\n", img.Ref)
	if err := c.Ctr(ctx, "images", "import", img.Path); err != nil {
		return "", fmt.Errorf("importing authbench's image into the kube lab: %w", err)
	}
	return img.Ref, nil
}
