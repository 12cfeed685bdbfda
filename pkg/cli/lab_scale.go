package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/stacks"
)

// newLabScaleCmd is `authbench lab scale`: replicas of an auth component
// in the running lab.
func newLabScaleCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "scale COMPONENT=REPLICAS...",
		Short: "Run an auth component of the running lab as N replicas behind the layer in front of it",
		Long: `Runs N replicas of an auth component while the lab runs, behind the layer that
balances them: the ext_authz services (` + stacks.KubeAuthProxyOAuth + `, ` + stacks.OAuth2Proxy + `) and the
kube-rbac-proxy sidecars behind their gateway's Envoy (round robin), the 2x
oauth-proxy behind the route's HAProxy (balance random). Each replica is its
own process (on the kube lab: its own Deployment, hostNetwork pods needing
their own ports) with its own port, cgroup, log, caches and API server
identity (COMPONENT-rN in the audit log), so for one token pool the API server's
reviews grow with the replicas; the run's apiserver section counts them per
replica. A new replica gets the component's current limit, and ` + "`lab limit COMPONENT=...`" + `
limits every replica. Scaling is live, no request dropped: a gateway's Envoy
reloads its clusters' endpoints from files it watches, the route's HAProxy
fills server-template slots through its runtime API. COMPONENT=1 goes back
to one. The
replicas show in ` + "`lab status`" + ` and last until the lab stops. Up to ` + fmt.Sprint(stacks.MaxReplicas) + ` replicas;
on the kube lab the front's endpoints files and runtime API socket are in
host directories of the lab its pods mount.`,
		Example: `  authbench lab scale kube-auth-proxy-oauth=3
  authbench lab scale oauth-proxy=4 kube-rbac-proxy-oauth=2
  authbench lab scale kube-auth-proxy-oauth=1`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scales, err := stacks.ParseScales(args)
			if err != nil {
				return err
			}
			l := openLab(dir)
			if err := l.Scale(cmd.Context(), scales...); err != nil {
				return err
			}
			s, err := l.State(cmd.Context())
			if err != nil {
				return err
			}
			for _, sc := range scales {
				front, _ := stacks.Scalable(sc.Component)
				var names []string
				for _, c := range s.Components {
					if c.Name == sc.Component || c.ReplicaOf == sc.Component {
						where := c.Workload // the kube lab's
						if c.PID > 0 {
							where = fmt.Sprintf("pid %d", c.PID)
						}
						names = append(names, fmt.Sprintf("%s (%s, %s)", c.Name, where, c.URL))
					}
				}
				if _, err := fmt.Fprintf(cmd.OutOrStdout(), "%s: %d replicas behind %s: %s\n", sc.Component, len(names), front.Name,
					strings.Join(names, ", ")); err != nil {
					return err
				}
			}
			return nil
		},
	}
	addLabSubDirFlag(cmd, &dir)
	return cmd
}
