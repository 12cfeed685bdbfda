package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

func init() {
	register(func(streams) *cobra.Command { return newLabCmd() })
}

// renderRunHTML writes a run's self-contained HTML report, with its
// timeline and histograms when the run directory has them.
func renderRunHTML(w io.Writer, dir string, run *results.Run) error {
	tl, err := store.ReadTimeline(dir)
	if err != nil {
		return err
	}
	hists, err := store.ReadHistograms(dir, run)
	if err != nil {
		return err
	}
	return report.RunHTML(w, run, tl, analyze.Histograms(run, hists)...)
}
