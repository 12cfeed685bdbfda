package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// RegressionsText words the change points of `authbench regressions`:
// per target and metric, the first run after each change, the means
// before and after, the relative change, its significance and whether it
// is a regression or an improvement; then where the history was split
// because runs were not comparable.
func RegressionsText(w io.Writer, rep analyze.ChangeReport) error {
	var b strings.Builder
	c := rep.Config
	fmt.Fprintf(&b, "Change points (E-Divisive means; permutation test, %d permutations, alpha %g; changes under %s ignored)\n\n",
		c.Permutations, c.Alpha, fmtPct(c.MinRelativeChange))
	var quiet []string
	for _, s := range rep.Series {
		if len(s.Changes) == 0 && len(s.Segments) <= 1 {
			quiet = append(quiet, fmt.Sprintf("%s %s (%d runs)", seriesTarget(s.Target, s.Kind), metricName(s.Metric, s.Kind), len(s.Points)))
			continue
		}
		regressSeriesText(&b, s)
	}
	if len(rep.Series) == 0 {
		b.WriteString("No runs in the history: `authbench run` and `authbench publish` add runs.\n")
	}
	if len(quiet) > 0 {
		fmt.Fprintf(&b, "No change in: %s.\n", strings.Join(quiet, ", "))
	}
	if cur := rep.CurrentRegressions(); len(cur) > 0 {
		fmt.Fprintf(&b, "\n%d regression(s) still hold at the newest run.\n", len(cur))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing regressions: %w", err)
	}
	return nil
}

func regressSeriesText(b *strings.Builder, s analyze.ChangeSeries) {
	fmt.Fprintf(b, "%s — %s (%s), %d runs\n", seriesTarget(s.Target, s.Kind), metricName(s.Metric, s.Kind), s.Unit, len(s.Points))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, c := range s.Changes {
		verdict := strings.ToUpper(c.Direction)
		if c.Current {
			verdict += " (still holds at the newest run)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\t%s\tsignificance %s\t%s\n",
			fmtDay(c.Date), runLabel(c.RunName, c.RunID), fmtValue(c.Before, s.Unit), fmtValue(c.After, s.Unit),
			fmtSigned(c.Relative), fmtPct(1-c.PValue), verdict)
	}
	tw.Flush()
	for _, seg := range s.Segments[min(1, len(s.Segments)):] {
		p := s.Points[seg.From]
		fmt.Fprintf(b, "  history split at %s %s (not comparable, analysed apart): %s\n",
			fmtDay(p.Start), runLabel(p.RunName, p.RunID), strings.Join(seg.Reasons, " "))
	}
	b.WriteString("\n")
}

// RegressionJSON is one change point as `regressions -o json` prints it.
type RegressionJSON struct {
	RunID          string    `json:"run_id"`
	RunName        string    `json:"run_name"`
	Date           time.Time `json:"date"`
	Target         string    `json:"target"`
	Kind           string    `json:"kind,omitempty"`
	Metric         string    `json:"metric"`
	Unit           string    `json:"unit"`
	Before         float64   `json:"before"`
	After          float64   `json:"after"`
	RelativeChange float64   `json:"relative_change"`
	Significance   float64   `json:"significance"`
	PValue         float64   `json:"p_value"`
	Direction      string    `json:"direction"`
	Current        bool      `json:"current"`
}

// SplitJSON is a point where the history was cut.
type SplitJSON struct {
	Target  string   `json:"target"`
	Kind    string   `json:"kind,omitempty"`
	Metric  string   `json:"metric"`
	RunID   string   `json:"run_id"`
	RunName string   `json:"run_name"`
	Reasons []string `json:"reasons"`
}

// RegressionsJSON writes the change points and the splits as JSON, for
// scripts and CI.
func RegressionsJSON(w io.Writer, rep analyze.ChangeReport) error {
	out := struct {
		Config       analyze.ChangePointConfig `json:"config"`
		ChangePoints []RegressionJSON          `json:"change_points"`
		Splits       []SplitJSON               `json:"splits"`
	}{Config: rep.Config, ChangePoints: []RegressionJSON{}, Splits: []SplitJSON{}}
	for _, s := range rep.Series {
		for _, c := range s.Changes {
			rel := c.Relative
			if math.IsInf(rel, 0) || math.IsNaN(rel) {
				rel = 0
			}
			out.ChangePoints = append(out.ChangePoints, RegressionJSON{
				RunID: c.RunID, RunName: c.RunName, Date: c.Date, Target: c.Target, Kind: c.Kind, Metric: string(c.Metric), Unit: s.Unit,
				Before: c.Before, After: c.After, RelativeChange: rel, Significance: 1 - c.PValue, PValue: c.PValue,
				Direction: c.Direction, Current: c.Current,
			})
		}
		for _, seg := range s.Segments[min(1, len(s.Segments)):] {
			p := s.Points[seg.From]
			out.Splits = append(out.Splits, SplitJSON{Target: s.Target, Kind: s.Kind, Metric: string(s.Metric), RunID: p.RunID, RunName: p.RunName, Reasons: seg.Reasons})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing regressions: %w", err)
	}
	return nil
}

func fmtDay(t time.Time) string {
	if t.IsZero() {
		return "(no date)"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func runLabel(name, id string) string {
	if name == "" {
		return id
	}
	if id == "" || id == name {
		return name
	}
	return name + " (" + id + ")"
}

func fmtValue(v float64, unit string) string {
	switch unit {
	case "ms":
		return fmtLatency(v)
	case "req/s":
		return fmtRPS(v)
	case "%":
		return fmtSig(v, 4) + "%"
	}
	return fmtSig(v, 3)
}

func fmtPct(f float64) string { return fmtSig(100*f, 3) + "%" }

func fmtSigned(f float64) string {
	if math.IsInf(f, 0) {
		return "from 0"
	}
	if f >= 0 {
		return "+" + fmtPct(f)
	}
	return "−" + fmtPct(-f)
}

// seriesTarget names a target's series: its capacity searches apart.
func seriesTarget(target, kind string) string {
	if kind == results.KindCapacity {
		return target + " (capacity)"
	}
	return target
}

// metricName is "capacity" for a capacity series' throughput: the
// capacity found, an offered rate.
func metricName(m analyze.TrendMetric, kind string) string {
	if kind == results.KindCapacity && m == analyze.TrendThroughput {
		return "capacity"
	}
	return string(m)
}

// HistoryRows are the rows `history` prints: a capacity search's row has
// its target marked "(capacity)", so that it is listed and trended apart
// from the target's load runs.
func HistoryRows(pts []analyze.HistoryPoint) []store.HistoryRow {
	out := make([]store.HistoryRow, len(pts))
	for i, p := range pts {
		out[i] = p.Row
		out[i].Target = seriesTarget(p.Row.Target, p.Kind)
	}
	return out
}

// HistoryJSON is `history -o json`: {"runs": [...]}, one element per run
// and target, oldest first as in the text, each the index's row with the
// backend's fingerprint and, for a capacity search, its kind and SLO.
func HistoryJSON(w io.Writer, pts []analyze.HistoryPoint) error {
	out := struct {
		Runs []analyze.HistoryPoint `json:"runs"`
	}{Runs: pts}
	if out.Runs == nil {
		out.Runs = []analyze.HistoryPoint{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// HistoryPointsText is `history`'s text: HistoryText of HistoryRows, with
// a note on what a capacity search's row holds.
func HistoryPointsText(w io.Writer, pts []analyze.HistoryPoint) error {
	if err := HistoryText(w, HistoryRows(pts)); err != nil {
		return err
	}
	if !slices.ContainsFunc(pts, analyze.HistoryPoint.IsCapacity) {
		return nil
	}
	_, err := io.WriteString(w, "\n(capacity): capacity searches. Throughput is the capacity found (offered req/s); iterations, latency and success are the passing steps at it.\n")
	return err
}
