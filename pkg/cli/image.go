package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/image"
)

func init() { register(newImageCmd) }

func newImageCmd(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "image",
		Short: "Build the lab's container images as OCI layout tarballs (no Docker) and push them to a registry",
	}
	cmd.AddCommand(newImageBuildCmd(s), newImagePushCmd(s))
	return cmd
}

func newImageBuildCmd(s streams) *cobra.Command {
	var o image.Options
	var all bool
	cmd := &cobra.Command{
		Use:   "build [NAME...]",
		Short: "Build images (" + strings.Join(image.Names(), ", ") + "); cached by version",
		Long: `Build images as OCI image layout tarballs under the cache (CACHE/images), one
line per image: name, reference, path. Import one into containerd with
ctr -n k8s.io images import FILE, or push it to a registry with
authbench image push REGISTRY/NAME --image NAME for authbench kube deploy --image-registry.`,
		RunE: func(cmd *cobra.Command, names []string) error {
			if all == (len(names) > 0) {
				return errors.New("name images to build, or pass --all")
			}
			for _, n := range orAll(names) {
				start := time.Now()
				img, cached, err := image.Build(cmd.Context(), n, o)
				if err != nil {
					return err
				}
				how := fmt.Sprintf("built in %s", time.Since(start).Round(time.Millisecond))
				if cached {
					how = "cached"
				}
				fmt.Fprintf(s.out, "%-16s %s %s (%s)\n", img.Name, img.Ref, img.Path, how)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&all, "all", false, "build every image")
	f.StringVar(&o.Registry, "image-registry", "", "registry prefix of the image references (default "+image.DefaultRegistry+")")
	f.StringVar(&o.Cache, "cache", "", "cache directory (default $AUTHBENCH_CACHE or ~/.cache/authbench)")
	return cmd
}

func orAll(names []string) []string {
	if len(names) == 0 {
		return image.Names()
	}
	return names
}
