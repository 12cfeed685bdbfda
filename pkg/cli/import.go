package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/importer"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
)

func init() { register(newImportCmd) }

type importOptions struct {
	name string
	out  string
	date string
}

func newImportCmd(s streams) *cobra.Command {
	o := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import hey|wrk FILE...",
		Short: "Turn hey or wrk (--latency) output into a run directory",
		Long: `import converts saved hey output (one output per iteration; a file may hold
several, one after the other) or wrk --latency output into a run that report,
compare and history treat like any other. The run is marked imported, and
whatever the tool did not print is left empty and named, never invented.`,
		Example: `  authbench import hey oauth-2x.log --name oauth-2x --date 2025-10-23`,
		Args:    cobra.MinimumNArgs(2),
		RunE:    func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), args[0], args[1:], s) },
	}
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "run name (required)")
	addOutDirFlag(cmd, &o.out)
	f.StringVar(&o.date, "date", "", "when the imported runs happened (YYYY-MM-DD or RFC 3339); hey and wrk do not print it")
	cmd.MarkFlagRequired("name")
	return cmd
}

func (o *importOptions) run(ctx context.Context, tool string, files []string, s streams) error {
	var run *results.Run
	var err error
	switch tool {
	case importer.ToolHey:
		run, err = importer.Hey(files, o.name)
	case "wrk":
		run, err = importer.Wrk(files, o.name)
	default:
		return fmt.Errorf("unknown tool %q: want hey or wrk", tool)
	}
	if err != nil {
		return err
	}
	if o.date != "" {
		t, err := parseDate(o.date)
		if err != nil {
			return err
		}
		run.Start, run.End = t, t
	}
	dir, err := runner.Save(ctx, o.out, run, sinks.Standard(o.out, s.err))
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "imported %d iteration(s) from %s into %s\n", len(run.Results), tool, dir)
	return nil
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("--date %q: want YYYY-MM-DD or RFC 3339", s)
}
