package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/demo"
	"github.com/authbench/authbench/pkg/lab"
)

func init() { register(newDemoCmd) }

type demoOptions struct {
	demo.Options
	limits limitsValue
	stacks stacksValue
}

func newDemoCmd(s streams) *cobra.Command {
	o := &demoOptions{stacks: stacksValue{stacks: []string{lab.Stack2x, lab.Stack3x}}}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start the lab, benchmark the 2x and 3x stacks alike, and print a verdict",
		Long: `demo is what make demo runs: it starts the lab's two stacks (unless a lab is
already running), runs the same load against each, writes each stack's summary
and a comparison, prints P50, P95, throughput and the 3x/2x ratios, and stops
the lab it started. Run 'authbench lab install' (make lab) first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Limits, o.Stacks, o.Version, o.Stdout, o.Log = o.limits.limits, o.stacks.stacks, Version, s.out, s.err
			_, err := demo.Run(cmd.Context(), o.Options)
			return err
		},
	}
	f := cmd.Flags()
	f.Int64VarP(&o.Requests, "requests", "n", lab.ScenarioRequests, "requests per iteration")
	f.IntVarP(&o.Concurrency, "concurrency", "c", lab.ScenarioConcurrency, "concurrency")
	f.IntVar(&o.Iterations, "iterations", lab.ScenarioIterations, "iterations")
	f.Int64Var(&o.Warmup, "warmup", 0, "unrecorded warm-up requests per stack (default 10% of -n; -1 for none)")
	f.Float64VarP(&o.Rate, "rate", "q", 0, "total rate: run the open loop instead")
	addLabDirFlag(cmd, &o.LabDir, lab.DefaultDir(), "lab directory")
	f.Var(&o.stacks, "stack", "lab stacks to benchmark: "+strings.Join(lab.Stacks(), ", ")+" or all")
	f.Var(&o.limits, "limit", "COMPONENT=CPU[,MEM] limit when the demo starts the lab, e.g. oauth2-proxy=50m (repeatable)")
	f.BoolVar(&o.Keep, "keep", false, "leave the lab running afterwards")
	addOutDirFlag(cmd, &o.Out)
	return cmd
}
