package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/demo"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
	"github.com/authbench/authbench/pkg/stacks"
)

func init() { register(newDemoCmd) }

type demoOptions struct {
	demo.Options
	limits    limitsValue
	misconfig limitsValue
	stacks    stacksValue
	slo       sloValue
	platform  platformValue
}

func newDemoCmd(s streams) *cobra.Command {
	o := &demoOptions{stacks: stacksValue{stacks: []string{stacks.Stack2x, stacks.Stack3x}}}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Retell the migration reports on the lab: closed loop, capacity under an SLO, a CPU limit, the ladder",
		Long: `demo is what make demo runs. On the lab (started unless one is running, and
stopped afterwards if it started it) it shows, step by step, one or two lines each:
  1. the migration reports' comparison as they ran it (closed loop, 2x vs 3x) and the
     saturation finding that makes its latency ratio a capacity ratio;
  2. each stack's capacity under --slo, then both stacks' latency at one
     open-loop rate below both capacities, with the difference's significance;
  3. the reports' misconfiguration (--misconfigure, default oauth2-proxy=50m): the
     collapse, the throttling finding that names it, the capacity under it, and
     the recovery when it is lifted;
  4. the ladder: where each stack's latency goes, layer by layer;
  5. the verdict, and one HTML page of all of it, whose path is printed last.
Details go to the run directories under --out. Run 'authbench lab install'
(make lab) first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Limits, o.Stacks, o.Version, o.Stdout, o.Log = o.limits.limits, o.stacks.stacks, Version, s.out, s.err
			o.SLO, o.Platform, o.Platforms = o.slo.slo, o.platform.name, labPlatforms()
			o.Sinks = append([]runner.Sink{sinks.Optional(sinks.HTML(demo.ReportFile), s.err)}, sinks.Standard(o.Out, s.err)...)
			if len(o.misconfig.limits) > 0 {
				o.Limit = &o.misconfig.limits[len(o.misconfig.limits)-1]
			}
			_, err := demo.Run(cmd.Context(), o.Options)
			return err
		},
	}
	f := cmd.Flags()
	f.Int64VarP(&o.Requests, "requests", "n", lab.ScenarioRequests, "requests per iteration of step 1's closed loop")
	f.IntVarP(&o.Concurrency, "concurrency", "c", lab.ScenarioConcurrency, "closed-loop workers; the open loops' bound on requests in flight")
	f.IntVar(&o.Iterations, "iterations", lab.ScenarioIterations, "iterations of step 1's closed loop")
	f.Int64Var(&o.Warmup, "warmup", 0, "unrecorded warm-up requests per stack (default 10% of -n; -1 for none)")
	f.Var(&o.slo, "slo", `objectives capacity is searched under (default "`+demo.DefaultSLO+`")`)
	f.DurationVar(&o.CapacityBudget, "budget", demo.DefaultCapacityBudget, "time each stack's capacity search may take")
	f.Float64Var(&o.MinRate, "min", demo.DefaultMinRate, "first rate of the capacity search, in requests per second")
	f.Float64VarP(&o.Rate, "rate", "q", 0, "total open-loop rate of steps 2 to 4 (default: half the lowest capacity)")
	f.Var(&o.misconfig, "misconfigure", "COMPONENT=CPU limit set and lifted in step 3 (default "+demo.DefaultLimit+")")
	addLabDirFlag(cmd, &o.LabDir, lab.DefaultDir(), "lab directory")
	f.Var(&o.platform, "platform", "lab platform when the demo starts the lab: "+strings.Join(lab.KnownPlatforms(), " or ")+" (default processes)")
	f.Var(&o.stacks, "stack", "lab stacks to benchmark: "+strings.Join(stacks.Names(), ", ")+" or all")
	f.Var(&o.limits, "limit", "COMPONENT=CPU[,MEM] limit when the demo starts the lab (repeatable)")
	f.DurationVar(&o.AuthzTimeout, "authz-timeout", demo.DefaultAuthzTimeout, "the 3.x gateways' ext_authz timeout when the demo starts the lab (a running lab keeps its own)")
	f.BoolVar(&o.Keep, "keep", false, "leave the lab running afterwards")
	addOutDirFlag(cmd, &o.Out)
	return cmd
}
