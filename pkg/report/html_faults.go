package report

import (
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// Band colours of the faults: a dependency down, a delay or a bandwidth
// limit.
const (
	faultDownColor  = "#d62728"
	faultDelayColor = "#ff7f0e"
)

// faultOverlay shades each fault in force over the time charts, on the
// axis timelineXY lays each target's iterations on, labelled with its
// link and what it did ("apiserver +200 ms", "keycloak down 5 s").
func faultOverlay(run *results.Run, tl *results.Timeline, targets []string, charts []chart) {
	spans := analyze.FaultSpans(run)
	if len(spans) == 0 || tl == nil {
		return
	}
	var bands []bandSpec
	for _, name := range targets {
		prefix := ""
		if len(targets) > 1 {
			prefix = name + ": "
		}
		bands = append(bands, targetBands(run, seriesOf(tl, name), spans, prefix)...)
	}
	if len(bands) == 0 {
		return
	}
	for i := range charts {
		c := &charts[i]
		if (c.ID == ChartThroughputTime || c.ID == ChartLatencyTime) && c.Spec != nil {
			c.Spec.Bands = append(c.Spec.Bands, bands...)
			c.Caption += " Shaded: faults on the lab's links, labelled with the link and what was done to it."
		}
	}
}

// targetBands clips each span to the target's iterations, each laid from
// its result's start at the offset timelineXY gives it.
func targetBands(run *results.Run, series []results.Series, spans []analyze.FaultSpan, prefix string) []bandSpec {
	starts := map[int]time.Time{}
	for _, r := range run.Results {
		if len(series) > 0 && r.Target == series[0].Target {
			starts[r.Iteration] = r.Start
		}
	}
	var out []bandSpec
	offset := 0.0
	for _, s := range series {
		last := 0.0
		if n := len(s.Points); n > 0 {
			last = s.Points[n-1].T
		}
		start, ok := starts[s.Iteration]
		end := start.Add(time.Duration((last + 1) * float64(time.Second)))
		for _, sp := range spans {
			from, to := later(sp.From, start), earlier(sp.To, end)
			if !ok || start.IsZero() || !to.After(from) {
				continue
			}
			out = append(out, bandSpec{X0: offset + from.Sub(start).Seconds(), X1: offset + to.Sub(start).Seconds(),
				Label: prefix + analyze.FaultLabel(sp.Fault), Color: faultColor(sp.Fault)})
		}
		offset += last + 1
	}
	return out
}

func faultColor(ev results.FaultEvent) string {
	if ev.Down {
		return faultDownColor
	}
	return faultDelayColor
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// faultsTable lists the faults in force during the run; nil without any.
func faultsTable(run *results.Run) []htmlTable {
	spans := analyze.FaultSpans(run)
	if len(spans) == 0 {
		return nil
	}
	t := htmlTable{ID: "faults", Title: "Faults on the lab's links", Head: []string{"Fault", "Link", "Set at", "Until", "Lasted"},
		Note: "Seconds from the run's start, when the lab's fault proxy took each change."}
	for _, sp := range spans {
		t.Rows = append(t.Rows, []string{analyze.FaultLabel(sp.Fault), sp.Fault.Link, offsetCell(run, sp.From),
			offsetCell(run, sp.To) + " (" + sp.Ended + ")", fmtSig(sp.Seconds(), 3) + " s"})
	}
	return []htmlTable{t}
}
