package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/runner"
)

func init() { register(newCapacityCmd) }

// capacityOptions are run's flags that make sense for a search (the rate,
// request count and iterations are the search's to choose) and its own.
type capacityOptions struct {
	runOptions
	slo      string
	min, max float64
	budget   time.Duration
}

// capacitySkipped are run's flags a search has no use for.
var capacitySkipped = map[string]bool{"requests": true, "rate": true, "iterations": true}

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
above rate × latency for slow targets.`,
		Example: `  authbench capacity --slo "p99<100ms,success_rate>=99.9%" http://127.0.0.1:8080/
  authbench capacity -f scenario.yaml --slo "p99<100ms" --min 50 --max 5000 --budget 1m -o json`,
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
			f.Shorthand, f.Usage = "o", "stdout format: text or json (json: only the searches' results on stdout)"
		}
		cmd.Flags().AddFlag(f)
	})
	f := cmd.Flags()
	f.StringVar(&o.slo, "slo", "", `objectives every step must meet, e.g. "p99<100ms,success_rate>=99.9%" (default: the scenario's slo)`)
	f.Float64Var(&o.min, "min", capacity.DefaultMin, "first rate tried, in requests per second")
	f.Float64Var(&o.max, "max", 0, "highest rate tried (default: no cap but the budget)")
	f.DurationVar(&o.budget, "budget", capacity.DefaultBudget, "time the search may take")
}

func (o *capacityOptions) run(cmd *cobra.Command, args []string, s streams) error {
	p, err := o.plan(args, s.err)
	if err != nil {
		return err
	}
	if o.slo != "" {
		if p.SLO, err = parseSLO(o.slo); err != nil {
			return err
		}
	}
	if p.SLO == nil {
		return errors.New(`capacity needs an SLO: give --slo "p99<100ms,success_rate>=99.9%" or an slo in the scenario`)
	}
	co := runner.CapacityOptions{
		Options: runner.Options{Plan: p, Out: o.out, CommandLine: s.argv, Version: Version, Log: s.err},
		Search:  capacity.Options{SLO: *p.SLO, Min: o.min, Max: o.max, Budget: o.budget},
		Step:    o.duration,
	}
	if err := o.observe(cmd.Context(), &co.Options); err != nil {
		return err
	}
	out, err := runner.Capacity(cmd.Context(), co)
	if out == nil {
		return err
	}
	if perr := o.print(s, out); perr != nil {
		return perr
	}
	return capacityExit(out, err)
}

func (o *capacityOptions) print(s streams, out *runner.CapacityOutcome) error {
	if o.output == "json" {
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

// parseSLO reads --slo: comma-separated objectives, each a name, an
// operator and a value: p50, p95 and p99 below a duration ("<" or "<="),
// success_rate at least a percentage or fraction (">=" or ">"),
// throughput at least a rate in requests per second.
// TODO(lead): replace with the shared typed --slo flag value (issue 10).
func parseSLO(s string) (*plan.SLO, error) {
	out := &plan.SLO{}
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		name, op, value, ok := splitObjective(term)
		if !ok {
			return nil, fmt.Errorf("--slo: %q is not an objective such as p99<100ms or success_rate>=99.9%%", term)
		}
		if err := setObjective(out, name, op, value); err != nil {
			return nil, fmt.Errorf("--slo: %q: %w", term, err)
		}
	}
	return out, nil
}

func splitObjective(term string) (name, op, value string, ok bool) {
	i := strings.IndexAny(term, "<>=")
	if i <= 0 {
		return "", "", "", false
	}
	j := i
	for j < len(term) && strings.IndexByte("<>=", term[j]) >= 0 {
		j++
	}
	name, op, value = strings.TrimSpace(term[:i]), term[i:j], strings.TrimSpace(term[j:])
	return name, op, value, value != ""
}

func setObjective(slo *plan.SLO, name, op, value string) error {
	switch name {
	case "p50", "p95", "p99":
		if op != "<" && op != "<=" {
			return fmt.Errorf("a latency objective is a maximum: use < or <=")
		}
		d, err := time.ParseDuration(value)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration such as 100ms, got %q", value)
		}
		*map[string]*plan.Duration{"p50": &slo.P50, "p95": &slo.P95, "p99": &slo.P99}[name] = plan.Duration(d)
	case "success_rate":
		if op != ">=" && op != ">" {
			return fmt.Errorf("success_rate is a minimum: use >= or >")
		}
		r, err := parseFraction(value)
		if err != nil {
			return err
		}
		slo.SuccessRate = r
	case "throughput":
		if op != ">=" && op != ">" {
			return fmt.Errorf("throughput is a minimum: use >= or >")
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(value, "rps"), 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("want requests per second above 0, got %q", value)
		}
		slo.Throughput = v
	default:
		return fmt.Errorf("unknown objective %q: want p50, p95, p99, success_rate or throughput", name)
	}
	return nil
}

// parseFraction accepts "99.9%" or 0.999, in (0, 1].
func parseFraction(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if pct {
		// Round off the binary noise of the division: "99.9%" is 0.999.
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v/100, 'g', 12, 64), 64)
	}
	if err != nil || v <= 0 || v > 1 {
		return 0, fmt.Errorf("want a percentage such as 99.9%% or a fraction in (0, 1], got %q", s)
	}
	return v, nil
}
