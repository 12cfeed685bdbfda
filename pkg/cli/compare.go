package cli

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

func init() { register(newCompareCmd) }

type compareOptions struct {
	baseline string
	format   string
	output   string
}

func newCompareCmd(s streams) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare RUN...",
		Short: "Compare runs (or the targets within one run) honestly",
		Long: `compare puts two or more runs side by side, or the targets of one run: latency,
throughput, errors and resources with differences and ratios, tells a difference
beyond run-to-run noise from one within it, and warns at the top when the runs
are not comparable (another backend, load model, concurrency or machine).`,
		Example: `  authbench compare runs/*-oauth-2x runs/*-oidc-3x --baseline oauth-2x
  authbench compare runs/20251118T093000Z-demo --format html -o compare.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(args, s) },
	}
	f := cmd.Flags()
	f.StringVar(&o.baseline, "baseline", "", "side to compare against: a run name, id, or target (default: the first)")
	f.StringVar(&o.format, "format", "md", "md or html")
	f.StringVarP(&o.output, "output", "o", "-", "output file (- for stdout)")
	return cmd
}

func (o *compareOptions) run(paths []string, s streams) error {
	runs := make([]*results.Run, len(paths))
	files := make([]analyze.RunFiles, len(paths))
	for i, p := range paths {
		r, err := store.Read(p)
		if err != nil {
			return err
		}
		if files[i], err = readRunFiles(store.Dir(p), r); err != nil {
			return fmt.Errorf("comparing runs: comparing %s: %w", r.Name, err)
		}
		runs[i] = r
	}
	c, err := analyze.Compare(runs, analyze.CompareOptions{Baseline: o.baseline, Files: files})
	if err != nil {
		return fmt.Errorf("comparing runs: %w", err)
	}
	var buf bytes.Buffer
	switch o.format {
	case "md":
		err = report.CompareMarkdown(&buf, c)
	case "html":
		err = report.CompareHTML(&buf, c)
	default:
		return fmt.Errorf("--format must be md or html, got %q", o.format)
	}
	if err != nil {
		return fmt.Errorf("rendering comparison: %w", err)
	}
	return writeOutput(s.out, o.output, "", buf.Bytes(), s.err)
}

// readRunFiles reads what compare needs beside run.json.
func readRunFiles(dir string, run *results.Run) (analyze.RunFiles, error) {
	hs, err := store.ReadHistograms(dir, run)
	if err != nil {
		return analyze.RunFiles{}, err
	}
	tl, err := store.ReadTimeline(dir)
	return analyze.RunFiles{Dir: dir, Hists: hs, Timeline: tl}, err
}
