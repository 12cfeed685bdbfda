package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/ladder"
	"github.com/authbench/authbench/pkg/live"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/scenario"
	"github.com/authbench/authbench/pkg/sinks"
	"github.com/authbench/authbench/pkg/stacks"
)

func init() { register(newLadderCmd) }

// ladderOptions are the flags of `authbench ladder`.
type ladderOptions struct {
	labDir, file, target string
	stack                stacksValue
	requests             int64
	duration             time.Duration
	rate, fraction       float64
	concurrency, rounds  int
	closed               bool
	probe                time.Duration
	extAuthz             []string
	gatewayLog, gateway  string
	out, name            string
	output               formatValue
	live                 bool
	changed              func(string) bool
}

func newLadderCmd(s streams) *cobra.Command {
	o := &ladderOptions{stack: stacksValue{stacks: []string{stacks.Stack3x}, single: true}}
	cmd := &cobra.Command{
		Use:   "ladder",
		Short: "Measure where a stack's latency goes, layer by layer (the ladder)",
		Long: `The ladder sends the same load to each layer's own entry point, from the inside
out (backend, rbac proxy, auth service, gateway) and to the target's URL, interleaving
them over rounds. Each layer's added latency at P50, P95 and P99 is its rung minus the
rung inside it, with bootstrap intervals; the unattributed remainder (end to end minus
the layers' sum) and each rung's capacity (the bottleneck) are reported too.

By default the load is an open loop at half the weakest rung's capacity, found by a
short closed-loop probe of every rung; --closed runs closed loops instead.
Without -f it runs on a stack of the local lab; with -f on a scenario target's rungs.`,
		Example: `  authbench ladder --stack 3x
  authbench ladder --stack 2x --rounds 5 -z 3s --output json
  authbench ladder -f cluster.yaml --target gateway -q 200 --ext-authz kube-auth-proxy`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = cmd.Flags().Changed
			return o.run(cmd, s)
		},
	}
	f := cmd.Flags()
	f.Var(&o.stack, "stack", "lab stack to measure: "+strings.Join(stacks.Names(), " or ")+" (without -f)")
	addLabDirFlag(cmd, &o.labDir, lab.DefaultDir(), "lab directory (without -f)")
	f.StringVarP(&o.file, "file", "f", "", "scenario file whose target lists rungs (for a cluster)")
	f.StringVar(&o.target, "target", "", "the scenario's target (default: the only one with rungs)")
	f.Int64VarP(&o.requests, "requests", "n", 0, "requests per rung per round, instead of -z (-z wins when both are given, as in run)")
	f.DurationVarP(&o.duration, "duration", "z", ladder.DefaultSlotDuration, "duration of each rung's turn per round")
	f.Float64VarP(&o.rate, "rate", "q", 0, "open-loop TOTAL rate on every rung (default: --rate-fraction of the weakest capacity)")
	f.Float64Var(&o.fraction, "rate-fraction", ladder.DefaultRateFraction, "fraction of the weakest rung's capacity to run the open loop at")
	f.IntVarP(&o.concurrency, "concurrency", "c", plan.DefaultConcurrency, "workers (closed loop, probes) or the bound on in-flight requests (open loop)")
	f.IntVar(&o.rounds, "rounds", ladder.DefaultRounds, "rounds of the interleaved rungs")
	f.BoolVar(&o.closed, "closed", false, "run every turn as a closed loop (latency then includes queueing)")
	f.DurationVar(&o.probe, "probe", ladder.DefaultProbeDuration, "duration of each rung's closed-loop capacity probe")
	f.StringSliceVar(&o.extAuthz, "ext-authz", nil, `layers that are ext_authz services ("none": none; default: from the lab, else detected)`)
	f.StringVar(&o.gatewayLog, "gateway-log", "", "gateway access log with \"authbench-ladder\" lines (ladder.EnvoyLogFormat, ladder.HAProxyLogFormat), to time the ext_authz hop")
	f.StringVar(&o.gateway, "gateway", "", "the gateway's layer for --gateway-log (default: the outermost layer)")
	addFormatFlag(cmd, &o.output, "json prints only the ladder", formatText, formatJSON)
	addOutDirFlag(cmd, &o.out)
	f.StringVar(&o.name, "name", "", `run name (default "ladder-" + the target's name)`)
	addLiveFlag(cmd, &o.live)
	return cmd
}

func (o *ladderOptions) run(cmd *cobra.Command, s streams) error {
	var lo ladder.Options
	lv := newLive(s, o.live, live.Options{Title: "ladder", PhaseWord: "round", Phases: o.rounds}, func() *observe.Monitor { return lo.Monitor })
	defer lv.stop()
	s.err = lv.log
	lo, err := o.options(cmd.Context(), s)
	if err != nil {
		return err
	}
	lo.Watch = lv.watcher()
	if lo.Stack != "" {
		// Only the lab's components: the scenario's own observe list
		// describes its run, not the ladder's rungs.
		obs, err := sampling.Observe(cmd.Context(), &plan.Plan{Targets: lo.Plan.Targets}, sampling.Options{LabDir: o.labDir, Platforms: labPlatforms()})
		if err != nil {
			return err
		}
		lo.Monitor, lo.Lab, lo.Reviews, lo.Gateways, lo.Faults = obs.Monitor, obs.Lab, obs.Reviews, obs.Gateways, obs.Faults
	}
	lv.start(cmd.Context())
	out, err := ladder.Run(cmd.Context(), lo)
	lv.stop()
	if out == nil || out.Ladder == nil {
		return err
	}
	if perr := o.print(s, out); perr != nil {
		return perr
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("%w: %s", err, out.Dir)}
	}
	return err
}

// options builds the ladder's options from the lab or a scenario, then
// lays the flags over them. The plan layer (in ladder.Run) completes and
// checks the plan.
func (o *ladderOptions) options(ctx context.Context, s streams) (ladder.Options, error) {
	var lo ladder.Options
	if o.file != "" {
		p, err := scenario.Load(o.file)
		if err != nil {
			return lo, err
		}
		if err := refuseStages(p, "the ladder"); err != nil {
			return lo, err
		}
		lo = ladder.Options{Plan: p, Target: o.target}
	} else {
		var err error
		if lo, err = ladder.LabOptions(ctx, o.labDir, o.stack.stacks[0], labPlatforms()...); err != nil {
			return lo, err
		}
	}
	o.applyLoad(lo.Plan)
	lo.Rounds, lo.RateFraction, lo.Closed, lo.ProbeDuration = o.rounds, o.fraction, o.closed, o.probe
	if o.changed("ext-authz") {
		lo.ExtAuthz = []string{}
		for _, x := range o.extAuthz {
			if x != "none" {
				lo.ExtAuthz = append(lo.ExtAuthz, x)
			}
		}
	}
	if o.gatewayLog != "" {
		lo.Gateway = &ladder.GatewayLog{Path: o.gatewayLog, Gateway: o.gateway}
	}
	lo.Out, lo.Name, lo.CommandLine, lo.Version = o.out, o.name, s.argv, Version
	lo.Log = s.err
	lo.Sinks = append([]runner.Sink{sinks.HTML(ladder.ReportFile)}, sinks.Standard(lo.Out, s.err)...)
	return lo, nil
}

// applyLoad lays the turn's flags over the plan, recording the ones given
// (plan.Given) for the plan layer's checks and messages. Each turn is -z
// long, or -n requests (not both, as in run); the rate is -q's (0: a
// fraction of the weakest capacity): the scenario's own requests,
// duration and rate describe its runs, not the ladder's turns. The
// scenario's concurrency holds unless -c is given.
func (o *ladderOptions) applyLoad(p *plan.Plan) {
	l := &p.Load
	for _, f := range []string{plan.FieldRequests, plan.FieldDuration, plan.FieldRate} {
		delete(p.Given, f)
	}
	give := func(flag, field string) {
		if o.changed(flag) {
			p.Give(field, flagName(flag))
		}
	}
	l.Requests, l.Duration = 0, plan.Duration(o.duration)
	switch {
	case o.changed("requests") && o.changed("duration"):
		// Both given: the plan refuses the pair, naming both flags.
		l.Requests = o.requests
		give("requests", plan.FieldRequests)
	case o.changed("requests"):
		l.Requests, l.Duration = o.requests, 0
		give("requests", plan.FieldRequests)
	}
	give("duration", plan.FieldDuration)
	if o.changed("concurrency") {
		l.Concurrency = o.concurrency
		give("concurrency", plan.FieldConcurrency)
	}
	l.Rate = o.rate
	if o.rate != 0 {
		give("rate", plan.FieldRate)
	}
}

func (o *ladderOptions) print(s streams, out *ladder.Outcome) error {
	if o.output.value == formatJSON {
		return ladder.WriteJSON(s.out, out.Ladder)
	}
	return report.LadderText(s.out, out.Ladder, out.Dir)
}
