package cli

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/kube/pods"
)

func init() { register(newAgentCmd) }

// newAgentCmd is the load generator inside a pod of `run --pods`: it
// speaks JSON lines on stdout to the coordinator, which reads them as the
// pod's log.
func newAgentCmd(s streams) *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:    "agent",
		Short:  "Load generator of one pod of run --pods (started by the Job, not by hand)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			idx, err := strconv.Atoi(os.Getenv("JOB_COMPLETION_INDEX"))
			if err != nil {
				return fmt.Errorf("reading JOB_COMPLETION_INDEX: %w", err)
			}
			return pods.RunAgent(cmd.Context(), config, idx, s.out)
		},
	}
	cmd.Flags().StringVar(&config, "config", pods.SecretDir+"/"+pods.ConfigFile, "the run's agent configuration (mounted from its Secret)")
	return cmd
}
