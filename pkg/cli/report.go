package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

func init() { register(newReportCmd) }

type reportOptions struct {
	format string
	output string
}

func newReportCmd(s streams) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Regenerate a run's summary (Markdown) or write its HTML report",
		Long: `report re-renders a run from its run.json alone. With --format md (the
default) it rewrites RUN_DIR/summary.md, or writes to -o FILE ("-" for stdout).
With --format html it writes one self-contained HTML file with charts.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(args[0], s) },
	}
	cmd.Flags().StringVar(&o.format, "format", "md", "md or html")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output file (default RUN_DIR/summary.md or RUN_DIR/report.html; - for stdout)")
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
	switch o.format {
	case "md":
		err = report.Summary(&buf, run)
	case "html":
		def = "report.html"
		err = renderRunHTML(&buf, dir, run)
	default:
		return fmt.Errorf("--format must be md or html, got %q", o.format)
	}
	if err != nil {
		return fmt.Errorf("rendering report: %w", err)
	}
	return writeOutput(s.out, o.output, filepath.Join(dir, def), buf.Bytes(), s.err)
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
