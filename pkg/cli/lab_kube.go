package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/lab/platform/kube"
)

// newLabKubeconfigCmd is `authbench lab kubeconfig`: the kube lab's admin
// kubeconfig on stdout, as `kind get kubeconfig` prints its cluster's.
func newLabKubeconfigCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:     "kubeconfig",
		Short:   "Print the kube lab's admin kubeconfig (the lab keeps its copy at mode 0600)",
		Example: "  authbench lab kubeconfig > /tmp/lab.kubeconfig && chmod 600 /tmp/lab.kubeconfig",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := kube.Kubeconfig(openLab(dir).Dir())
			if err != nil {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	addLabSubDirFlag(cmd, &dir)
	return cmd
}
