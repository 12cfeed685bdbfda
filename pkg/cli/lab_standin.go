package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/lab/standin"
)

// newLabStandinCmd runs one of authbench's stand-ins (oauth-proxy,
// kube-auth-proxy), configured from $AUTHBENCH_LAB_STANDIN; hidden: the
// lab's platforms start it.
func newLabStandinCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "standin",
		Short:  "Run a stand-in auth proxy configured from $" + standin.Env + " (started by the lab)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := os.Getenv(standin.Env)
			if v == "" {
				return fmt.Errorf("running a stand-in: $%s is not set (the lab's platforms set it)", standin.Env)
			}
			c, err := standin.Decode(v)
			if err != nil {
				return err
			}
			return standin.Run(cmd.Context(), c, cmd.ErrOrStderr())
		},
	}
}
