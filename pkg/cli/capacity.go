package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/live"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
)

func init() { register(newCapacityCmd) }

// capacityOptions are run's flags that make sense for a search (the rate,
// request count and iterations are the search's to choose) and its own.
type capacityOptions struct {
	runOptions
	min, max float64
	budget   time.Duration
	// replicas and limits: the search per replica count of a lab
	// component (--replicas), each replica under --limit.
	replicas scaleStepsValue
	limits   limitsValue
}

// capacitySkipped are run's flags a search has no use for.
var capacitySkipped = map[string]bool{"requests": true, "rate": true, "stages": true, "iterations": true}

func newCapacityCmd(s streams) *cobra.Command {
	o := &capacityOptions{}
	cmd := &cobra.Command{
		Use:   "capacity [URL]",
		Short: "Find the highest open-loop rate that meets an SLO",
		Long: `capacity searches the open-loop rate: it doubles the rate from --min until the
SLO breaks or the achieved rate falls under 95% of the offered one, then bisects,
measuring rates near the boundary several times, until the interval is narrower
than 5% or --budget is spent. It prints the capacity with its uncertainty, the
curve measured (offered against achieved rate, p50, p95, p99, success rate), the
knee, and which sampled component saturated first. The run directory holds one
result per step and capacity.json. -c bounds the requests in flight: raise it
above rate × latency for slow targets.

--replicas COMPONENT=1,2,4 searches each target once per replica count of a
lab's auth component (lab scale), each search's target named TARGET@N, and
records the curve (capacity and the API server's reviews per second at each
count) in run.json and the summary; --limit sets each replica's limit.`,
		Example: `  authbench capacity --slo "p99<100ms,success_rate>=99.9%" http://127.0.0.1:8080/
  authbench capacity -f scenario.yaml --slo "p99<100ms" --min 50 --max 5000 --budget 1m -o json
  authbench capacity -f lab.yaml --slo "p99<100ms" --replicas kube-auth-proxy-oauth=1,2,4 --limit kube-auth-proxy-oauth=200m`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed = cmd.Flags().Changed
			return o.run(cmd, args, s)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// addFlags borrows run's flag definitions (bound to the embedded
// runOptions) and adds the search's.
func (o *capacityOptions) addFlags(cmd *cobra.Command) {
	borrowed := &cobra.Command{}
	o.runOptions.addFlags(borrowed)
	o.duration = capacity.DefaultStep
	borrowed.Flags().VisitAll(func(f *pflag.Flag) {
		if capacitySkipped[f.Name] {
			return
		}
		switch f.Name {
		case "duration":
			f.Usage, f.DefValue = "duration of each step", capacity.DefaultStep.String()
		case "delay":
			f.Usage = "pause between steps"
		case "output":
			f.Usage = "output format: text, json; json prints only the searches' results on stdout"
		case "slo":
			f.Usage = `objectives every step must meet, e.g. "p99<100ms,success_rate>=99.9%" (default: the scenario's slo)`
		}
		cmd.Flags().AddFlag(f)
	})
	f := cmd.Flags()
	f.Float64Var(&o.min, "min", capacity.DefaultMin, "first rate tried, in requests per second")
	f.Float64Var(&o.max, "max", 0, "highest rate tried (default: no cap but the budget)")
	f.DurationVar(&o.budget, "budget", capacity.DefaultBudget, "time the search may take")
	f.Var(&o.replicas, "replicas", "search once per replica count of a lab's auth component (lab scale), e.g. kube-auth-proxy-oauth=1,2,4; the lab is put back after")
	f.Var(&o.limits, "limit", "with --replicas: each replica's CPU (and memory) limit during the searches, e.g. kube-auth-proxy-oauth=200m (lab limit; repeatable)")
}

func (o *capacityOptions) run(cmd *cobra.Command, args []string, s streams) error {
	p, err := o.plan(cmd.Context(), args, s.err)
	if err != nil {
		return err
	}
	if err := refuseStages(p, "capacity"); err != nil {
		return err
	}
	if p.SLO == nil {
		return errors.New(`capacity needs an SLO: give --slo "p99<100ms,success_rate>=99.9%" or an slo in the scenario`)
	}
	co := runner.CapacityOptions{
		Options: runner.Options{Plan: p, Out: o.out, CommandLine: s.argv, Version: Version},
		Search:  capacity.Options{SLO: *p.SLO, Min: o.min, Max: o.max, Budget: o.budget},
		Step:    o.duration,
	}
	lv := newLive(s, o.live, live.Options{Title: "capacity", PhaseWord: "step", PerPhase: true}, func() *observe.Monitor { return co.Monitor })
	defer lv.stop()
	co.Log, co.Sinks, co.Watch = lv.log, sinks.Standard(o.out, lv.log), lv.watcher()
	// The limits first, so that the run's lab record shows them.
	if o.replicas.steps != nil {
		sc, restore, err := labScaling(cmd.Context(), p.Lab, *o.replicas.steps, o.limits.limits)
		if err != nil {
			return err
		}
		defer restore()
		co.Scale = sc
	} else if len(o.limits.limits) > 0 {
		return errors.New("--limit goes with --replicas (to limit a running lab's components, use authbench lab limit)")
	}
	if err := o.observe(cmd.Context(), &co.Options); err != nil {
		return err
	}
	lv.start(cmd.Context())
	out, err := runner.Capacity(cmd.Context(), co)
	lv.stop()
	if out == nil {
		return err
	}
	if perr := o.print(s, out); perr != nil {
		return perr
	}
	return capacityExit(out, err)
}

func (o *capacityOptions) print(s streams, out *runner.CapacityOutcome) error {
	if o.output.value == formatJSON {
		return capacity.WriteJSON(s.out, out.Searches)
	}
	for _, r := range out.Searches {
		if err := capacity.WriteText(s.out, r); err != nil {
			return err
		}
		fmt.Fprintln(s.out)
	}
	_, err := fmt.Fprintf(s.out, "Results: %s\n", out.Dir)
	return err
}

// capacityExit: interrupted is 130; a search that found no rate meeting
// the SLO, or a capacity under its throughput minimum, is an SLO failure.
func capacityExit(out *runner.CapacityOutcome, err error) error {
	if err != nil {
		return exitFor(&out.Outcome, err)
	}
	var failed []string
	for _, r := range out.Searches {
		switch {
		case r.Capacity == 0:
			failed = append(failed, fmt.Sprintf("%s: no rate tried met it", r.Target))
		case r.ThroughputMet != nil && !*r.ThroughputMet:
			failed = append(failed, fmt.Sprintf("%s: capacity %g req/s is under the throughput minimum %g", r.Target, r.Capacity, r.SLO.Throughput))
		}
	}
	if len(failed) > 0 {
		return &exitError{code: ExitSLOFailed, err: fmt.Errorf("SLO failed: %s (%s)", strings.Join(failed, "; "), out.Dir)}
	}
	return nil
}
