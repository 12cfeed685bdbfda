package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/authbench/authbench/pkg/live"
	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
)

func init() { register(newRunCmd) }

func newRunCmd(s streams) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run [URL]",
		Short: "Benchmark a URL (hey's flags) or the targets of a scenario file (-f)",
		Example: `  authbench run -n 10000 -c 50 --token-command "oc whoami -t" https://echo.apps.example.com/
  authbench run -q 500 -z 30s --iterations 5 --token-env TOKEN https://gateway.example.com/echo
  authbench run -f scenario.yaml -c 100`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed = cmd.Flags().Changed
			return o.run(cmd, args, s)
		},
	}
	o.addFlags(cmd)
	addPodFlags(cmd)
	return cmd
}

// run builds the plan, runs it and prints the outcome.
func (o *runOptions) run(cmd *cobra.Command, args []string, s streams) error {
	p, err := o.plan(cmd.Context(), args, s.err)
	if err != nil {
		return err
	}
	ro := runner.Options{Plan: p, Out: o.out, CommandLine: s.argv, Version: Version}
	lv := newLive(s, o.live, live.Options{Title: "run", Phases: max(p.Load.Iterations, plan.DefaultIterations)}, func() *observe.Monitor { return ro.Monitor })
	defer lv.stop()
	ro.Log, ro.Sinks, ro.Watch = lv.log, sinks.Standard(o.out, lv.log), lv.watcher()
	if ro.Watch == nil && o.output.value == formatText && isTerminal(s.out) {
		ro.Progress = progressLine{s.out}
	}
	if err := podExecutor(cmd.Context(), cmd, &ro, lv.log); err != nil {
		return err
	}
	if err := o.observe(cmd.Context(), &ro); err != nil {
		return err
	}
	lv.start(cmd.Context())
	outcome, err := runner.Run(cmd.Context(), ro)
	lv.stop()
	if outcome == nil {
		return err
	}
	if perr := o.print(s, outcome); perr != nil {
		return perr
	}
	return exitFor(outcome, err)
}

func (o *runOptions) print(s streams, out *runner.Outcome) error {
	if o.output.value == formatJSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out.Run)
	}
	return report.WriteText(s.out, out.Run, report.TextOptions{RunDir: out.Dir})
}

// exitFor maps a finished run to the documented exit codes.
func exitFor(out *runner.Outcome, err error) error {
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("%w: %s", err, out.Dir)}
	}
	if err != nil {
		return err
	}
	var failed []string
	for _, c := range out.Run.SLO {
		if !c.Pass {
			failed = append(failed, fmt.Sprintf("%s %s: measured %g%s, limit %g%s", c.Target, c.Objective, c.Measured, c.Unit, c.Limit, c.Unit))
		}
	}
	if len(failed) > 0 {
		return &exitError{code: ExitSLOFailed, err: fmt.Errorf("SLO failed: %s (%s)", strings.Join(failed, "; "), out.Dir)}
	}
	return nil
}

// progressLine redraws the progress of a phase in place on a terminal.
type progressLine struct{ w io.Writer }

// Show redraws the line.
func (l progressLine) Show(st load.ProgressState) { fmt.Fprint(l.w, "\r\033[K"+report.Progress(st)) }

// Clear erases it.
func (l progressLine) Clear() { fmt.Fprint(l.w, "\r\033[K") }

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
