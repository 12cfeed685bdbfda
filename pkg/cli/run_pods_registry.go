package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/pods"
	"github.com/authbench/authbench/pkg/plan"
)

// addPodRegistryFlags adds --pods' flags for pulling this binary's image
// from a registry: it is pushed there when missing and the Job pins it by
// digest, so the pods run exactly this binary.
func addPodRegistryFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.String("image-registry", "", "for --pods: push this binary's image to REGISTRY (HOST[:PORT][/PATH]) when missing and pin it by digest")
	f.String("image-pull-secret", "", "for --pods: Secret of the namespace the kubelet pulls the image with (default: the node's credentials)")
	new(registryFlags).add(cmd, " of --image-registry")
}

// podRegistryFlags reads the registry flags addPodRegistryFlags added.
func podRegistryFlags(cmd *cobra.Command) registryFlags {
	f := cmd.Flags()
	var r registryFlags
	r.insecure, _ = f.GetBool("insecure-registry")
	r.creds.User, _ = f.GetString("registry-user")
	r.creds.PasswordFile, _ = f.GetString("registry-password-file")
	r.creds.TokenCommand, _ = f.GetString("registry-token-command")
	return r
}

// podRegistryImage sets o's image to this binary's, pushed to
// --image-registry and pinned by digest, and its pull secret.
func podRegistryImage(ctx context.Context, cmd *cobra.Command, o *pods.Options, log io.Writer) error {
	f := cmd.Flags()
	if f.Changed("image-pull-secret") {
		v, _ := f.GetString("image-pull-secret")
		n, err := plan.ParseObjectName(v)
		if err != nil {
			return fmt.Errorf("--image-pull-secret %q: %w", v, err)
		}
		o.PullSecret = n
	}
	r := podRegistryFlags(cmd)
	registry, _ := f.GetString("image-registry")
	if !f.Changed("image-registry") {
		if n, ok := r.changed(cmd); ok {
			return fmt.Errorf("--%s applies to --image-registry", n)
		}
		return nil
	}
	if f.Changed("image") {
		return errors.New("--image and --image-registry: give one (--image-registry pushes this binary's image)")
	}
	dest := func(tag string) (image.Destination, error) {
		return image.RegistryDestination(registry, "authbench", tag, r.insecure)
	}
	p, err := pushImage(ctx, "authbench", dest, r, log)
	if err != nil {
		return err
	}
	// Pinned by digest, the image cannot change under the run: the
	// node's copy, if any, is the same image.
	o.Image, o.PullPolicy = p.Ref, "IfNotPresent"
	return nil
}

// registryNeedsPods refuses the registry flags of a run without pods.
func registryNeedsPods(cmd *cobra.Command) error {
	for _, n := range []string{"image-registry", "image-pull-secret", "insecure-registry", "registry-user",
		"registry-password-file", "registry-token-command"} {
		if cmd.Flags().Changed(n) {
			return fmt.Errorf("--%s applies to load from pods: give --pods N (or an execution block)", n)
		}
	}
	return nil
}
