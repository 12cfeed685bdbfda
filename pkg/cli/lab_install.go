package cli

import (
	"github.com/spf13/cobra"

	"github.com/authbench/authbench/internal/toolcache"
)

func newLabInstallCmd() *cobra.Command {
	o := toolcache.Options{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install what the lab needs: apt packages, pinned Go tools, Keycloak, the Envoy and HAProxy wheels (cached, skips what is there)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			_, err := toolcache.Install(cmd.Context(), o)
			return err
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Only, "only", nil, "run only these steps (see the step names in the output)")
	f.BoolVar(&o.Optional, "optional", false, "also run the optional steps")
	f.BoolVar(&o.SkipApt, "skip-apt", false, "never run apt-get; report missing packages")
	f.StringVar(&o.CacheDir, "cache", "", "cache directory (default $AUTHBENCH_CACHE or ~/.cache/authbench)")
	return cmd
}
