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
	format   formatValue
	file     string
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
  authbench compare runs/20251118T093000Z-demo -o html --output-file compare.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(args, s) },
	}
	f := cmd.Flags()
	f.StringVar(&o.baseline, "baseline", "", "side to compare against: a run name, id, or target (default: the first)")
	addFormatFlag(cmd, &o.format, "md is Markdown, html a self-contained page", formatMD, formatHTML)
	addFormatAlias(cmd, &o.format)
	addOutputFileFlag(cmd, &o.file, "-", "output file (- for stdout)")
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
	if o.format.value == formatHTML {
		err = report.CompareHTML(&buf, c)
	} else {
		err = report.CompareMarkdown(&buf, c)
	}
	if err != nil {
		return fmt.Errorf("rendering comparison: %w", err)
	}
	return writeOutput(s.out, o.file, "", buf.Bytes(), s.err)
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
