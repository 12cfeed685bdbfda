package analyze

import (
	"time"
)

// Directions of a change.
const (
	Regression  = "regression"
	Improvement = "improvement"
)

// RegressionQuery selects what DetectRegressions looks at.
type RegressionQuery struct {
	// Metrics to follow. Default: all of TrendMetrics.
	Metrics []TrendMetric `json:"metrics"`
	// Config tunes the detection (zero: defaults).
	Config ChangePointConfig `json:"config"`
}

// ChangeReport is the change points of every target x metric series.
type ChangeReport struct {
	Config ChangePointConfig `json:"config"`
	Series []ChangeSeries    `json:"series"`
}

// ChangeSeries is one target's history of one metric, oldest first.
type ChangeSeries struct {
	Target string `json:"target"`
	// Kind is results.KindCapacity for the series of a target's capacity
	// searches (throughput is then the capacity found), apart from its
	// load runs; "" for load runs.
	Kind   string        `json:"kind,omitempty"`
	Metric TrendMetric   `json:"metric"`
	Unit   string        `json:"unit"`
	Points []SeriesValue `json:"points"`
	// Segments are the comparable stretches of Points; detection runs in
	// each one alone, so a change of setup never reads as a change.
	Segments []ComparableSegment `json:"segments"`
	Changes  []RunChange         `json:"changes"`
}

// SeriesValue is one run's value.
type SeriesValue struct {
	RunID   string    `json:"run_id"`
	RunName string    `json:"run_name"`
	Start   time.Time `json:"date"`
	Value   float64   `json:"value"`
}

// ComparableSegment is Points[From:To]; Reasons say why it is not
// comparable with the segment before it (empty for the first).
type ComparableSegment struct {
	From    int      `json:"from"`
	To      int      `json:"to"`
	Reasons []string `json:"reasons,omitempty"`
}

// RunChange is a change point located at the first run after the change.
type RunChange struct {
	RunID   string      `json:"run_id"`
	RunName string      `json:"run_name"`
	Date    time.Time   `json:"date"`
	Target  string      `json:"target"`
	Kind    string      `json:"kind,omitempty"`
	Metric  TrendMetric `json:"metric"`
	// Index is the run's position in the series' Points.
	Index    int     `json:"index"`
	Before   float64 `json:"before"`
	After    float64 `json:"after"`
	Relative float64 `json:"relative_change"`
	// PValue is the permutation test's; significance is 1 - PValue.
	PValue    float64 `json:"p_value"`
	Direction string  `json:"direction"`
	// Current is true when this is the last change of its series and the
	// newest run lies after it in the same comparable segment: the change
	// still holds now.
	Current bool `json:"current"`
}

// DetectRegressions finds the change points in each target's history of
// each metric. points are history rows oldest first, as store.History
// returns them.
func DetectRegressions(points []HistoryPoint, q RegressionQuery) ChangeReport {
	metrics := q.Metrics
	if len(metrics) == 0 {
		metrics = TrendMetrics
	}
	rep := ChangeReport{Config: q.Config.withDefaults()}
	// A target's capacity searches are a series of their own: a curve's
	// capacity is not the throughput of one load.
	type key struct{ target, kind string }
	var keys []key
	byKey := map[key][]HistoryPoint{}
	for _, p := range points {
		k := key{p.Row.Target, p.Kind}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], p)
	}
	for _, k := range keys {
		for _, m := range metrics {
			s := detectSeries(k.target, m, byKey[k], rep.Config)
			s.Kind = k.kind
			for i := range s.Changes {
				s.Changes[i].Kind = k.kind
			}
			rep.Series = append(rep.Series, s)
		}
	}
	return rep
}

func detectSeries(target string, m TrendMetric, pts []HistoryPoint, cfg ChangePointConfig) ChangeSeries {
	s := ChangeSeries{Target: target, Metric: m, Unit: m.Unit()}
	var kept []HistoryPoint
	for _, p := range pts {
		v, ok := m.Value(p.Row)
		if !ok || !finite(v) {
			continue
		}
		kept = append(kept, p)
		s.Points = append(s.Points, SeriesValue{RunID: p.Row.RunID, RunName: p.Row.RunName, Start: p.Row.Start, Value: v})
	}
	s.Segments = comparableSegments(kept)
	values := make([]float64, len(s.Points))
	for i, p := range s.Points {
		values[i] = p.Value
	}
	for _, seg := range s.Segments {
		for _, c := range ChangePoints(values[seg.From:seg.To], cfg) {
			s.Changes = append(s.Changes, runChange(s, seg, c, m))
		}
	}
	if n := len(s.Changes); n > 0 && len(s.Segments) > 0 {
		last := s.Segments[len(s.Segments)-1]
		if c := &s.Changes[n-1]; c.Index >= last.From {
			c.Current = true
		}
	}
	return s
}

func runChange(s ChangeSeries, seg ComparableSegment, c Change, m TrendMetric) RunChange {
	i := seg.From + c.Index
	p := s.Points[i]
	dir := Improvement
	if (c.After > c.Before) == m.HigherIsWorse() {
		dir = Regression
	}
	return RunChange{
		RunID: p.RunID, RunName: p.RunName, Date: p.Start, Target: s.Target, Metric: m, Index: i,
		Before: c.Before, After: c.After, Relative: c.Relative, PValue: c.PValue, Direction: dir,
	}
}

// comparableSegments cuts the history wherever a run is not comparable
// with the one before it.
func comparableSegments(pts []HistoryPoint) []ComparableSegment {
	if len(pts) == 0 {
		return nil
	}
	segs := []ComparableSegment{{From: 0}}
	for i := 1; i < len(pts); i++ {
		if why := incomparable(pts[i-1], pts[i]); len(why) > 0 {
			segs[len(segs)-1].To = i
			segs = append(segs, ComparableSegment{From: i, Reasons: why})
		}
	}
	segs[len(segs)-1].To = len(pts)
	return segs
}

// CurrentRegressions are the regressions that still hold at the newest
// run of their series (see RunChange.Current): what CI fails on.
func (r ChangeReport) CurrentRegressions() []RunChange {
	var out []RunChange
	for _, s := range r.Series {
		for _, c := range s.Changes {
			if c.Current && c.Direction == Regression {
				out = append(out, c)
			}
		}
	}
	return out
}
