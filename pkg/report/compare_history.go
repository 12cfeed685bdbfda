package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/store"
)

// sparkChars are the eight heights of a text sparkline.
var sparkChars = []rune("▁▂▃▄▅▆▇█")

// HistoryText writes the trend of each target over runs, as `authbench
// history` prints it: a table per target (date, run, source, P50, P95,
// throughput, success rate), sparklines of P50, P95 and throughput with
// first-to-last change, and P50 bars. Latencies are the mean over
// iterations; "—" marks what a source did not measure.
func HistoryText(w io.Writer, rows []store.HistoryRow) error {
	var b strings.Builder
	if len(rows) == 0 {
		b.WriteString("No runs indexed yet: `authbench run` and `authbench import` add runs to the history.\n")
	}
	for i, g := range groupHistory(rows) {
		if i > 0 {
			b.WriteString("\n")
		}
		historyTarget(&b, g)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing history: %w", err)
	}
	return nil
}

type historyGroup struct {
	target string
	rows   []store.HistoryRow
}

// groupHistory splits rows by target, keeping their (chronological) order.
func groupHistory(rows []store.HistoryRow) []historyGroup {
	var out []historyGroup
	index := map[string]int{}
	for _, r := range rows {
		i, ok := index[r.Target]
		if !ok {
			i = len(out)
			index[r.Target] = i
			out = append(out, historyGroup{target: r.Target})
		}
		out[i].rows = append(out[i].rows, r)
	}
	return out
}

func historyTarget(b *strings.Builder, g historyGroup) {
	fmt.Fprintf(b, "History of %s (%d runs)\n\n", g.target, len(g.rows))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Date\tRun\tSource\tIterations\tP50\tP95\tThroughput\tSuccess")
	for _, r := range g.rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", historyDate(r), r.RunName, historySource(r), r.Iterations,
			optMs(r.P50), optMs(r.P95), cmpRate(r.Throughput), analyze.FormatFraction(r.SuccessRate))
	}
	tw.Flush()
	if len(g.rows) < 2 {
		return
	}
	b.WriteString("\nTrend (oldest → newest):\n")
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	trend := func(name string, get func(store.HistoryRow) *float64, f func(float64) string) {
		vals := make([]*float64, len(g.rows))
		for i, r := range g.rows {
			vals[i] = get(r)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, sparkline(vals), change(vals, f))
	}
	trend("P50", func(r store.HistoryRow) *float64 { return r.P50 }, cmpMs)
	trend("P95", func(r store.HistoryRow) *float64 { return r.P95 }, cmpMs)
	trend("Throughput", func(r store.HistoryRow) *float64 { v := r.Throughput; return &v }, cmpRate)
	tw.Flush()
	historyBars(b, g)
}

func historyDate(r store.HistoryRow) string {
	if r.Start.IsZero() {
		return "unknown"
	}
	return r.Start.UTC().Format("2006-01-02 15:04")
}

func historySource(r store.HistoryRow) string {
	s := "authbench"
	if r.Imported {
		s = r.Tool + " (imported)"
	}
	if r.Partial {
		s += ", partial"
	}
	return s
}

func optMs(v *float64) string {
	if v == nil {
		return "—"
	}
	return cmpMs(*v)
}

// sparkline maps values onto eight heights between their min and max;
// a missing value is a space.
func sparkline(vals []*float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v != nil {
			lo, hi = min(lo, *v), max(hi, *v)
		}
	}
	var b strings.Builder
	for _, v := range vals {
		switch {
		case v == nil:
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(sparkChars[len(sparkChars)/2])
		default:
			i := int(math.Round((*v - lo) / (hi - lo) * float64(len(sparkChars)-1)))
			b.WriteRune(sparkChars[i])
		}
	}
	return b.String()
}

// change is "2.64 s → 1.62 s (0.614x)" from the first to the last
// measured value.
func change(vals []*float64, f func(float64) string) string {
	var first, last *float64
	for _, v := range vals {
		if v != nil {
			if first == nil {
				first = v
			}
			last = v
		}
	}
	if first == nil {
		return "not measured"
	}
	s := f(*first) + " → " + f(*last)
	if *first > 0 {
		s += " (" + analyze.FormatRatio(*last / *first) + ")"
	}
	return s
}

func historyBars(b *strings.Builder, g historyGroup) {
	var labels, suffix []string
	var values []float64
	for _, r := range g.rows {
		if r.P50 == nil {
			continue
		}
		labels = append(labels, historyDate(r)+" "+r.RunName)
		values = append(values, *r.P50)
		suffix = append(suffix, "")
	}
	if len(labels) < 2 {
		return
	}
	b.WriteString("\n")
	chart := textBars("P50 by run:", labels, values, cmpMs, suffix)
	// The fences are Markdown's; a terminal shows the bars alone.
	chart = strings.TrimPrefix(strings.TrimSuffix(chart, "```\n"), "```\n")
	b.WriteString(chart)
}
