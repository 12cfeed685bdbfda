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
	limits []string
}

func newDemoCmd(s streams) *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start the lab, benchmark the 2x and 3x stacks alike, and print a verdict",
		Long: `demo is what make demo runs: it starts the lab's two stacks (unless a lab is
already running), runs the same load against each, writes each stack's summary
and a comparison, prints P50, P95, throughput and the 3x/2x ratios, and stops
the lab it started. Run 'authbench lab install' (make lab) first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			limits, err := lab.ParseLimits(o.limits)
			if err != nil {
				return err
			}
			o.Limits, o.Version, o.Stdout, o.Log = limits, Version, s.out, s.err
			_, err = demo.Run(cmd.Context(), o.Options)
			return err
		},
	}
	f := cmd.Flags()
	f.Int64VarP(&o.Requests, "requests", "n", lab.ScenarioRequests, "requests per iteration")
	f.IntVarP(&o.Concurrency, "concurrency", "c", lab.ScenarioConcurrency, "concurrency")
	f.IntVar(&o.Iterations, "iterations", lab.ScenarioIterations, "iterations")
	f.Int64Var(&o.Warmup, "warmup", 0, "unrecorded warm-up requests per stack (default 10% of -n; -1 for none)")
	f.Float64VarP(&o.Rate, "rate", "q", 0, "total rate: run the open loop instead")
	f.StringVar(&o.LabDir, "lab-dir", lab.DefaultDir(), "lab directory")
	f.StringSliceVar(&o.Stacks, "stack", []string{lab.Stack2x, lab.Stack3x}, "lab stacks to benchmark: "+strings.Join(lab.Stacks(), ", ")+" or all")
	f.StringArrayVar(&o.limits, "limit", nil, "COMPONENT=CPU[,MEM] limit when the demo starts the lab, e.g. oauth2-proxy=50m")
	f.BoolVar(&o.Keep, "keep", false, "leave the lab running afterwards")
	f.StringVar(&o.Out, "out", "runs", "runs directory")
	return cmd
}
