package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/publish"
	"github.com/authbench/authbench/pkg/report"
	"github.com/authbench/authbench/pkg/store"
)

func init() { register(newRegressionsCmd) }

// ExitRegression is the exit code of `regressions --fail-on-regression`
// when a regression still holds at the newest run of some target and
// metric (documented in the README beside the other exit codes).
const ExitRegression = 4

type regressionsOptions struct {
	runsDir, source, since string
	target, metrics        string
	format                 formatValue
	failOnRegression       bool
	cfg                    analyze.ChangePointConfig
	os                     openSearchFlags
}

func newRegressionsCmd(s streams) *cobra.Command {
	o := &regressionsOptions{}
	cmd := &cobra.Command{
		Use:   "regressions",
		Short: "Find change points in each target's history (E-Divisive means)",
		Long: `regressions finds where each target's history changed, with E-Divisive means
and a permutation test (as Apache Otava and MongoDB do), ignoring changes under
a minimum relative size. Runs that are not comparable (another backend, load
model, concurrency or rate) split the history instead of reading as a change.

With --fail-on-regression the exit code is 4 when a regression still holds at
the newest run (the last change of a metric is a regression and no setup
change came after it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pts, q, err := o.load(cmd)
			if err != nil {
				return err
			}
			rep := analyze.DetectRegressions(pts, q)
			if err := o.write(s, rep); err != nil {
				return err
			}
			if o.failOnRegression && len(rep.CurrentRegressions()) > 0 {
				return &exitError{code: ExitRegression}
			}
			return nil
		},
	}
	f := cmd.Flags()
	addOutDirFlag(cmd, &o.runsDir)
	f.StringVar(&o.source, "source", "local", "where the history is: local (the runs directory's index) or opensearch")
	addFormatFlag(cmd, &o.format, "json for scripts and CI", formatText, formatJSON)
	f.StringVar(&o.target, "target", "", "only this target")
	f.StringVar(&o.metrics, "metric", "", "metrics to follow, comma-separated: p50, p95, p99, throughput, success (default all)")
	f.StringVar(&o.since, "since", "", "only runs since this date (2006-01-02, RFC 3339, or an age such as 30d or 72h)")
	f.BoolVar(&o.failOnRegression, "fail-on-regression", false, fmt.Sprintf("exit %d when a regression holds at the newest run", ExitRegression))
	f.Float64Var(&o.cfg.Alpha, "alpha", analyze.DefaultChangeAlpha, "significance level of the permutation test")
	f.Float64Var(&o.cfg.MinRelativeChange, "min-change", analyze.DefaultMinRelativeChange, "ignore changes smaller than this fraction")
	o.os.add(f)
	return cmd
}

func (o *regressionsOptions) load(cmd *cobra.Command) ([]analyze.HistoryPoint, analyze.RegressionQuery, error) {
	q := analyze.RegressionQuery{Config: o.cfg}
	if o.metrics != "" {
		for _, m := range strings.Split(o.metrics, ",") {
			tm, err := analyze.ParseTrendMetric(m)
			if err != nil {
				return nil, q, fmt.Errorf("--metric: %w", err)
			}
			q.Metrics = append(q.Metrics, tm)
		}
	}
	since, err := parseSince(o.since, time.Now())
	if err != nil {
		return nil, q, err
	}
	hq := store.HistoryQuery{Target: o.target, Since: since}
	pts, err := loadHistoryPoints(cmd, o.source, o.runsDir, &o.os, hq)
	return pts, q, err
}

// loadHistoryPoints reads the history from the local index or OpenSearch.
func loadHistoryPoints(cmd *cobra.Command, source, runsDir string, osf *openSearchFlags, q store.HistoryQuery) ([]analyze.HistoryPoint, error) {
	switch source {
	case "", "local":
		return publish.LocalHistory(runsDir, q)
	case "opensearch":
		cfg, err := osf.config()
		if err != nil {
			return nil, err
		}
		return publish.History(cmd.Context(), cfg, q)
	}
	return nil, fmt.Errorf("--source %q: want local or opensearch", source)
}

func (o *regressionsOptions) write(s streams, rep analyze.ChangeReport) error {
	if o.format.value == formatJSON {
		return report.RegressionsJSON(s.out, rep)
	}
	return report.RegressionsText(s.out, rep)
}

// parseSince accepts a date, an RFC 3339 time, or an age ("30d", "72h").
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n >= 0 && fmt.Sprint(n) == days {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2006-01-02), an RFC 3339 time or an age such as 30d", s)
}

// writeHistoryHTML is `history -o html`: the trend of every target and
// metric with its change points marked. history.go calls it with the
// points loadHistoryPoints returns (local or OpenSearch).
func writeHistoryHTML(w io.Writer, pts []analyze.HistoryPoint) error {
	rep := analyze.DetectRegressions(pts, analyze.RegressionQuery{})
	return report.HistoryHTML(w, report.HistoryRows(pts), rep)
}
