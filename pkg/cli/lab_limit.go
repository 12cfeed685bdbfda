package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/lab"
)

// newLabLimitCmd is `authbench lab limit`: what-if limits on a running lab.
func newLabLimitCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "limit COMPONENT=CPU[,MEM]|none...",
		Short: "Change components' CPU and memory limits in the running lab, without a restart",
		Long: `Rewrites the cgroup limits of running lab components in place, so that the
next run measures under them: a what-if such as the migration reports' 50m CPU limit
on the auth proxy. CPU is millicores (50m) or cores (0.5); MEM is bytes with an
optional suffix (256Mi). Each value replaces the component's whole limit, and
COMPONENT=none lifts it. A program name (http-echo) limits every component
running it. The limits show in ` + "`lab status`" + ` and in run.json, and last until
the lab stops.`,
		Example: `  authbench lab limit oauth2-proxy=50m
  authbench lab limit oauth2-proxy=500m,256Mi http-echo=200m
  authbench lab limit oauth2-proxy=none`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			limits, err := lab.ParseLimits(args)
			if err != nil {
				return err
			}
			l := openLab(dir)
			before, err := l.Components(cmd.Context())
			if err != nil {
				return err
			}
			if err := l.SetLimit(cmd.Context(), limits...); err != nil {
				return err
			}
			after, err := l.Components(cmd.Context())
			if err != nil {
				return err
			}
			return printLimitChanges(cmd, before, after)
		},
	}
	addLabSubDirFlag(cmd, &dir)
	return cmd
}

// printLimitChanges prints each component whose limit changed.
func printLimitChanges(cmd *cobra.Command, before, after []lab.ComponentInfo) error {
	was := map[string]string{}
	for _, c := range before {
		was[c.Name] = c.Limit
	}
	out := cmd.OutOrStdout()
	n := 0
	for _, c := range after {
		if old, ok := was[c.Name]; ok && old == c.Limit {
			continue
		}
		n++
		if _, err := fmt.Fprintf(out, "%-16s limit %s (was %s)\n", c.Name, orNone(c.Limit), orNone(was[c.Name])); err != nil {
			return err
		}
	}
	if n == 0 {
		_, err := fmt.Fprintln(out, "limits unchanged")
		return err
	}
	return nil
}

func orNone(limit string) string {
	if limit == "" {
		return lab.NoLimit
	}
	return limit
}
