// Package cli is authbench's command line: cobra commands that each fill an
// options struct and call a library package. No measurement or analysis
// logic lives here.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/authbench/authbench/pkg/redact"
)

// Version is set at build time with -ldflags "-X .../pkg/cli.Version=...".
var Version = "dev"

// Exit codes, documented in the README.
const (
	ExitOK          = 0
	ExitError       = 1   // bad input or a setup failure
	ExitSLOFailed   = 3   // the run completed but an SLO failed
	ExitInterrupted = 130 // Ctrl-C (SIGINT): partial results were written; SIGTERM gives ExitTerminated
)

// exitError carries a specific exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// streams are where commands write; tests replace them.
type streams struct {
	out, err io.Writer
	// argv is the whole command line, recorded (redacted) in run.json.
	argv []string
}

// Main runs the command line and returns the process exit code. SIGINT
// and SIGTERM stop the command gracefully, a second one exits at once
// (see signalHandler).
func Main(args []string) int {
	ctx, sig := handleSignals(context.Background(), os.Exit, os.Stderr)
	code := run(ctx, args, streams{out: os.Stdout, err: os.Stderr})
	sig.stop()
	return sig.code(code)
}

func run(ctx context.Context, args []string, s streams) int {
	s.argv = append([]string{"authbench"}, args...)
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(s.err, "authbench:", redact.Text(ee.err.Error()))
		}
		return ee.code
	}
	// The last line of defence: whatever an error quotes (a URL, a header,
	// a token endpoint's answer) leaves through the one redaction.
	fmt.Fprintln(s.err, "authbench:", redact.Text(err.Error()))
	return ExitError
}

func newRootCmd(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "authbench",
		Short: "Load-test authenticated HTTP endpoints and explain where the latency goes",
		Long: `authbench load-tests authenticated HTTP endpoints (closed loop like hey, or an
open loop corrected for coordinated omission), samples every component's CPU,
memory and throttling, says where the latency goes, compares runs honestly, and
brings a local lab of real auth stacks to reproduce findings.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
	}
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) { warnDeprecated(cmd, s.err) }
	for _, add := range commands {
		root.AddCommand(add(s))
	}
	return root
}

// commands lists constructors of the top-level commands; each command's
// file registers itself in init so commands stay independent.
var commands []func(streams) *cobra.Command

func register(f func(streams) *cobra.Command) { commands = append(commands, f) }

// flagError names a flag whose value Set refused without echoing the
// value: pflag's own message quotes it, and a header or token may be a
// secret. Each flag value's Set error says what it got, redacted.
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	f := ive.GetFlag()
	name := "--" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + "/" + name
	}
	return fmt.Errorf("%s: %w", name, ive.Unwrap())
}
