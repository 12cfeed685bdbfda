package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/image"
	"github.com/authbench/authbench/pkg/kube/cluster"
)

// newKubeClusterCmd runs the lab's single-node cluster on its own, for
// checks by hand and for the lab (which starts it with its stacks).
func newKubeClusterCmd(s streams) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Run the lab's single-node Kubernetes cluster alone (up, down, kubeconfig)",
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", "", "the cluster's directory (required)")
	cmd.MarkPersistentFlagRequired("dir")
	up := &cobra.Command{
		Use: "up", Short: "Start the cluster in the background with every image imported", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			imgs, err := image.BuildAll(cmd.Context(), image.Options{})
			if err != nil {
				return err
			}
			var paths []string
			for _, i := range imgs {
				paths = append(paths, i.Path)
			}
			fmt.Fprintf(s.err, "images ready in %s\n", time.Since(start).Round(time.Millisecond))
			c, err := cluster.Up(cmd.Context(), cluster.Options{Dir: dir, Images: paths, Detach: true, Out: s.err})
			if err != nil {
				return err
			}
			fmt.Fprintf(s.out, "cluster up in %s: kubeconfig %s\n", time.Since(start).Round(time.Millisecond), c.Kubeconfig())
			return nil
		},
	}
	down := &cobra.Command{
		Use: "down", Short: "Stop the cluster and remove what it left on the host", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			if err := cluster.DownDir(cmd.Context(), dir); err != nil {
				return err
			}
			fmt.Fprintf(s.out, "cluster down in %s\n", time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	kubeconfig := &cobra.Command{
		Use: "kubeconfig", Short: "Print the cluster's admin kubeconfig", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cluster.Open(dir)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(c.Kubeconfig())
			if err != nil {
				return err
			}
			_, err = s.out.Write(b)
			return err
		},
	}
	cmd.AddCommand(up, down, kubeconfig)
	return cmd
}
