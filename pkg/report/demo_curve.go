package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// ChartCapacityCurve is the id of a capacity run's latency against
// offered load (the hockey stick).
const ChartCapacityCurve = "capacity-curve"

// Curve is one target's capacity curve: one point per offered rate.
type Curve struct {
	Target string
	Points []CurvePoint
	// Capacity and FirstFail bound the capacity found (0: none).
	Capacity, FirstFail float64
}

// CurvePoint is one offered rate's measurement (the worst at that rate).
type CurvePoint struct {
	Offered, Achieved, P50, P95, P99, SuccessRate float64
}

// CurvesFromRun reads a capacity run's steps as curves, one per target:
// at each offered rate (Result.TargetRPS) the step with the highest P99,
// since percentiles of repeated steps are never averaged.
func CurvesFromRun(run *results.Run) []Curve {
	var out []Curve
	for _, t := range targetsInOrder(run) {
		by := map[float64]CurvePoint{}
		for _, r := range run.Results {
			if r.Target != t || r.TargetRPS <= 0 {
				continue
			}
			if p, ok := by[r.TargetRPS]; !ok || r.Latency.P99 > p.P99 {
				by[r.TargetRPS] = CurvePoint{Offered: r.TargetRPS, Achieved: r.ThroughputRPS, P50: r.Latency.P50,
					P95: r.Latency.P95, P99: r.Latency.P99, SuccessRate: r.SuccessRate}
			}
		}
		c := Curve{Target: t}
		for _, p := range by {
			c.Points = append(c.Points, p)
		}
		sort.Slice(c.Points, func(i, j int) bool { return c.Points[i].Offered < c.Points[j].Offered })
		out = append(out, c)
	}
	return out
}

// capacityCurveChart draws latency (P50, P95 dashed, P99) against the
// offered rate for each curve, the SLO's P99 as a flat dashed line, and
// each capacity found as a mark.
func capacityCurveChart(id string, curves []Curve, sloP99 float64) chart {
	c := chart{ID: id, Title: "Latency against offered load",
		Caption: "Each point is one offered rate of the search (the worst step at that rate). Latency stays flat " +
			"below capacity and climbs past it: the knee is where queueing begins."}
	spec := &chartSpec{Kind: "lines", X: axisSpec{Label: "offered load (req/s)", Unit: "req/s"},
		Y: axisSpec{Label: "latency (ms)", Unit: "ms"}}
	t := &htmlTable{Head: []string{"Target", "Offered", "Achieved", "P50", "P95", "P99", "Success"}}
	lo, hi := math.Inf(1), 0.0
	for i, cv := range curves {
		for _, q := range []struct {
			name string
			get  func(CurvePoint) float64
			dash bool
		}{{"P50", func(p CurvePoint) float64 { return p.P50 }, true}, {"P99", func(p CurvePoint) float64 { return p.P99 }, false}} {
			s := seriesSpec{Label: cv.Target + " " + q.name, Color: seriesColor(i), Dash: q.dash}
			for _, p := range cv.Points {
				s.X, s.Y = append(s.X, p.Offered), append(s.Y, q.get(p))
			}
			if len(s.X) > 0 {
				spec.Series = append(spec.Series, s)
			}
		}
		for _, p := range cv.Points {
			lo, hi = math.Min(lo, p.Offered), math.Max(hi, p.Offered)
			t.Rows = append(t.Rows, []string{cv.Target, fmtRPS(p.Offered), fmtRPS(p.Achieved), analyze.FormatMs(p.P50),
				analyze.FormatMs(p.P95), analyze.FormatMs(p.P99), analyze.FormatFraction(p.SuccessRate)})
		}
		if cv.Capacity > 0 {
			spec.Marks = append(spec.Marks, markSpec{X: cv.Capacity, Color: seriesColor(i),
				Label: fmt.Sprintf("%s capacity %s", cv.Target, fmtRPS(cv.Capacity))})
		}
	}
	if len(spec.Series) == 0 {
		c.Missing = "No step was measured."
		return c
	}
	if sloP99 > 0 && hi > 0 {
		spec.Series = append(spec.Series, seriesSpec{Label: "SLO P99", Color: "#555555", Dash: true,
			X: numbers{lo, hi}, Y: numbers{sloP99, sloP99}})
	}
	logY(spec)
	c.Spec, c.Fallback = spec, t
	return c
}

// SLOP99 is the run's P99 objective in ms (0: none).
func SLOP99(run *results.Run) float64 {
	if run.Plan.SLO == nil {
		return 0
	}
	return float64(run.Plan.SLO.P99.D()) / 1e6
}
