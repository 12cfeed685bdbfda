package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
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
		runs[i] = r
		if r.Kind == results.KindCapacity {
			continue
		}
		if files[i], err = readRunFiles(store.Dir(p), r); err != nil {
			return fmt.Errorf("comparing runs: comparing %s: %w", r.Name, err)
		}
		runs[i] = r
	}
	if capacityRuns(runs) > 0 {
		return o.compareCapacity(paths, runs, s)
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

func capacityRuns(runs []*results.Run) int {
	n := 0
	for _, r := range runs {
		if r.Kind == results.KindCapacity {
			n++
		}
	}
	return n
}

// compareCapacity compares capacity runs by the capacity each found and
// their curves. A capacity run's steps are points of a curve, not
// iterations of one load: it is not compared with a load run.
func (o *compareOptions) compareCapacity(paths []string, runs []*results.Run, s streams) error {
	if n := capacityRuns(runs); n < len(runs) {
		for i, r := range runs {
			if r.Kind != results.KindCapacity {
				return fmt.Errorf("comparing runs: %s is a capacity search and %s a load run: a search's steps are points of a curve, not iterations of one load. Compare capacity runs with each other, or load runs at the same rate",
					paths[slices.IndexFunc(runs, func(r *results.Run) bool { return r.Kind == results.KindCapacity })], paths[i])
			}
		}
	}
	cr := make([]report.CapacityRun, len(runs))
	base := 0
	for i, r := range runs {
		ss, err := readSearches(paths[i])
		if err != nil {
			return fmt.Errorf("comparing runs: %w", err)
		}
		cr[i] = report.CapacityRun{Label: r.Name + " of " + r.Start.UTC().Format("2006-01-02 15:04"), Searches: ss}
		if o.baseline != "" && (o.baseline == r.Name || o.baseline == r.ID) {
			base = i
		}
	}
	var buf bytes.Buffer
	var err error
	if o.format.value == formatHTML {
		err = report.CompareCapacityHTML(&buf, cr, base)
	} else {
		err = report.CompareCapacityMarkdown(&buf, cr, base)
	}
	if err != nil {
		return fmt.Errorf("rendering comparison: %w", err)
	}
	return writeOutput(s.out, o.file, "", buf.Bytes(), s.err)
}

// readSearches reads a capacity run's capacity.json.
func readSearches(dir string) ([]*capacity.Result, error) {
	b, err := boundedio.ReadFile(filepath.Join(store.Dir(dir), capacity.File), boundedio.Run)
	if err != nil {
		return nil, err
	}
	var ss []*capacity.Result
	if err := json.Unmarshal(b, &ss); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, capacity.File), err)
	}
	return ss, nil
}
