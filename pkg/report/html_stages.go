package report

import (
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// stageOverlay draws a staged run's schedule over the time charts: the
// target rate beside the achieved throughput, and a mark where each stage
// begins on both the throughput and the latency charts, so that where
// latency turns can be read against the rate that turned it.
func stageOverlay(run *results.Run, tl *results.Timeline, targets []string, charts []chart) {
	ss := run.Plan.Load.Stages
	if len(ss) == 0 || tl == nil {
		return
	}
	var marks []markSpec
	for i, name := range targets {
		series := seriesOf(tl, name)
		xs, ys := targetXY(series, ss)
		for _, c := range charts {
			if c.ID == ChartThroughputTime && c.Spec != nil && len(xs) > 0 {
				c.Spec.Series = append(c.Spec.Series, seriesSpec{Label: name + " target", Color: seriesColor(i), Dash: true, X: xs, Y: ys})
			}
		}
		if i == 0 {
			marks = stageMarks(series, ss)
		}
	}
	for i := range charts {
		c := &charts[i]
		if (c.ID == ChartThroughputTime || c.ID == ChartLatencyTime) && c.Spec != nil {
			c.Spec.Marks = append(c.Spec.Marks, marks...)
			if c.ID == ChartThroughputTime {
				c.Caption += " Dashed: the stages' target rate; vertical lines: where each stage begins."
			}
		}
	}
}

// targetXY is the schedule's rate at the middle of each timeline second,
// on the same axis as timelineXY (iterations end to end).
func targetXY(series []results.Series, ss plan.Stages) (xs, ys numbers) {
	offset := 0.0
	for _, s := range series {
		last := 0.0
		for _, p := range s.Points {
			_, r := ss.At(time.Duration((p.T + 0.5) * float64(time.Second)))
			xs, ys = append(xs, offset+p.T), append(ys, r)
			last = p.T
		}
		offset += last + 1
	}
	return xs, ys
}

// stageMarks are the stage boundaries of each iteration on that axis.
func stageMarks(series []results.Series, ss plan.Stages) []markSpec {
	var out []markSpec
	offset := 0.0
	for _, s := range series {
		at := 0.0
		for j, st := range ss {
			out = append(out, markSpec{X: offset + at, Label: fmt.Sprintf("stage %d: %s", j+1, st), Color: "#888888", Dash: true})
			at += st.Duration.D().Seconds()
		}
		last := 0.0
		if n := len(s.Points); n > 0 {
			last = s.Points[n-1].T
		}
		offset += last + 1
	}
	return out
}

// stagesTable is the per-stage results of a staged run; nil otherwise.
func stagesTable(run *results.Run) []htmlTable {
	t := htmlTable{ID: "stages", Title: "Stages",
		Head: []string{"Target", "Iter.", "Stage", "Schedule", "Target rate", "Achieved", "Requests", "P50", "P99", "P99 uncorrected", "Errors"}}
	for _, r := range run.Results {
		for _, st := range r.Stages {
			t.Rows = append(t.Rows, []string{r.Target, fmt.Sprint(r.Iteration), fmt.Sprint(st.Stage), stageSchedule(st),
				cmpRate(st.TargetRPS), cmpRate(st.AchievedRPS), fmtCount(st.Requests), cmpMs(st.Latency.P50),
				cmpMs(st.Latency.P99), cmpMs(st.LatencyUncorrected.P99), stageErrors(st)})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []htmlTable{t}
}
