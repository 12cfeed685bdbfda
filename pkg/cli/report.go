package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/sinks"
	"github.com/authbench/authbench/pkg/store"
)

func init() { register(newReportCmd) }

type reportOptions struct {
	format formatValue
	file   string
}

func newReportCmd(s streams) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Regenerate a run's summary (Markdown) or write its HTML report",
		Long: `report re-renders a run from its run.json alone. With -o md (the default)
it rewrites RUN_DIR/summary.md, or writes to --output-file FILE ("-" for stdout).
With -o html it writes one self-contained HTML file with charts, by default
RUN_DIR/report.html.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(args[0], s) },
	}
	addFormatFlag(cmd, &o.format, "md is the summary, html a self-contained report", formatMD, formatHTML)
	addFormatAlias(cmd, &o.format)
	addOutputFileFlag(cmd, &o.file, "", "output file (default RUN_DIR/summary.md or RUN_DIR/report.html; - for stdout)")
	return cmd
}

func (o *reportOptions) run(path string, s streams) error {
	dir := store.Dir(path)
	run, err := store.Read(dir)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	def := results.SummaryFile
	if o.format.value == formatHTML {
		def = "report.html"
		err = sinks.RunHTML(&buf, dir, run, nil)
	} else {
		err = report.Summary(&buf, run, analyze.Summarize(run))
	}
	if err != nil {
		return fmt.Errorf("rendering report: %w", err)
	}
	return writeOutput(s.out, o.file, filepath.Join(dir, def), buf.Bytes(), s.err)
}

// writeOutput writes to stdout ("-"), to the given file, or to def.
func writeOutput(stdout io.Writer, output, def string, data []byte, log io.Writer) error {
	if output == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if output == "" {
		output = def
	}
	if err := store.WriteFile(output, data); err != nil {
		return err
	}
	fmt.Fprintln(log, "wrote", output)
	return nil
}
