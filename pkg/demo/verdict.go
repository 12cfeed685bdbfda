package demo

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// compare writes the stacks' comparison next to the runs.
func compare(o Options, out *Outcome) error {
	if len(out.Runs) < 2 {
		return nil
	}
	runs := make([]*results.Run, len(out.Runs))
	files := make([]analyze.RunFiles, len(out.Runs))
	for i, r := range out.Runs {
		runs[i] = r.Run
		hs, err := store.ReadHistograms(r.Dir, r.Run)
		if err != nil {
			return fmt.Errorf("comparing the stacks: %w", err)
		}
		files[i] = analyze.RunFiles{Dir: r.Dir, Hists: hs, Timeline: r.Timeline}
	}
	c, err := analyze.Compare(runs, analyze.CompareOptions{Files: files})
	if err != nil {
		return fmt.Errorf("comparing the stacks: %w", err)
	}
	var md bytes.Buffer
	if err := report.CompareMarkdown(&md, c); err != nil {
		return fmt.Errorf("rendering the comparison: %w", err)
	}
	name := time.Now().UTC().Format(store.DirTimeFormat) + "-demo-compare.md"
	out.Comparison, out.CompareFile = c, filepath.Join(o.Out, name)
	return store.WriteFile(out.CompareFile, md.Bytes())
}

// verdict prints each stack's headline figures, the ratios, and where the
// files are.
func verdict(w io.Writer, out *Outcome) error {
	fmt.Fprintln(w, "\nVerdict")
	if c := out.Comparison; c != nil {
		fmt.Fprintf(w, "  %-14s %10s %10s %14s %9s   (latency: %s)\n", "stack", "P50", "P95", "throughput", "success", c.LatencySource)
		for _, s := range c.Sides {
			fmt.Fprintf(w, "  %-14s %10s %10s %10.1f/s %8.2f%%\n", s.Label,
				analyze.FormatMs(s.Latency.P50), analyze.FormatMs(s.Latency.P95), s.Throughput.Mean, 100*s.SuccessRate)
		}
		for _, line := range report.ExecutiveSummary(c) {
			fmt.Fprintln(w, "  "+line)
		}
		for _, warn := range c.Warnings {
			fmt.Fprintln(w, "  warning: "+warn.Message)
		}
	}
	for _, r := range out.Runs {
		for _, f := range r.Run.Findings {
			if f.Severity != "info" {
				fmt.Fprintf(w, "  finding (%s, %s): %s\n", r.Run.Name, f.Kind, firstSentence(f.Evidence))
			}
		}
	}
	fmt.Fprintln(w, "\nFiles")
	for _, r := range out.Runs {
		fmt.Fprintf(w, "  %s summary: %s\n", r.Run.Name, filepath.Join(r.Dir, results.SummaryFile))
	}
	if out.CompareFile != "" {
		fmt.Fprintf(w, "  comparison: %s\n", out.CompareFile)
	}
	return nil
}

func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}
