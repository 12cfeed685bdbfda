package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/authbench/authbench/pkg/analyze"
)

// chart is one figure of an HTML report: its data as JSON, drawn in the
// browser by uPlot (assets/charts.js), a table of its key figures for
// readers without JavaScript, or, when the data is missing, the reason.
type chart struct {
	ID      string
	Title   string
	Caption string
	Spec    *chartSpec
	// Fallback is shown when JavaScript is off; nil shows a note instead.
	Fallback *htmlTable
	Missing  string
}

// chartSpec is what assets/charts.js reads: kind is "lines", "bars" or
// "waterfall".
type chartSpec struct {
	Kind   string       `json:"kind"`
	X      axisSpec     `json:"x"`
	Y      axisSpec     `json:"y"`
	Series []seriesSpec `json:"series"`
	// Categories name the bars (iterations, layers).
	Categories []string `json:"categories,omitempty"`
	// Marks are vertical lines across a lines chart (change points).
	Marks []markSpec `json:"marks,omitempty"`
	// Bands shade a stretch of a lines chart's x axis (a fault in force).
	Bands []bandSpec `json:"bands,omitempty"`
}

// bandSpec shades X0 to X1, labelled at its top left.
type bandSpec struct {
	X0    float64 `json:"x0"`
	X1    float64 `json:"x1"`
	Label string  `json:"label"`
	Color string  `json:"color"`
}

// markSpec is one vertical line at X, labelled.
type markSpec struct {
	X     float64 `json:"x"`
	Label string  `json:"label"`
	Color string  `json:"color"`
	Dash  bool    `json:"dash,omitempty"`
}

// axisSpec is one axis. Percentile marks an x of 1/(1-q), labelled as q.
type axisSpec struct {
	Label      string `json:"label"`
	Unit       string `json:"unit,omitempty"`
	Log        bool   `json:"log,omitempty"`
	Percentile bool   `json:"percentile,omitempty"`
}

// seriesSpec is one line or set of bars. Y's NaNs are gaps (not measured,
// or zero on a log axis). Base is where each waterfall bar starts.
type seriesSpec struct {
	Label string  `json:"label"`
	Color string  `json:"color"`
	Dash  bool    `json:"dash,omitempty"`
	X     numbers `json:"x,omitempty"`
	Y     numbers `json:"y"`
	Base  numbers `json:"base,omitempty"`
}

// numbers encode NaN and infinities as null, which JSON has and uPlot
// draws as a gap.
type numbers []float64

// MarshalJSON implements json.Marshaler.
func (ns numbers) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range ns {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
			continue
		}
		b.WriteString(strconv.FormatFloat(v, 'g', 6, 64))
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

var _ json.Marshaler = numbers(nil)

// palette is Tableau 10: distinct hues that stay apart in print.
var palette = []string{"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

func seriesColor(i int) string { return palette[i%len(palette)] }

// spectrumSeries is one line of a percentile spectrum.
type spectrumSeries struct {
	Label string
	Sp    analyze.Spectrum
}

// spectrumChart plots latency by percentile on HdrHistogram's axis:
// x = 1/(1-q) on a log scale, so 90%, 99%, 99.9% ... are evenly spaced.
func spectrumChart(id string, series []spectrumSeries) chart {
	c := chart{ID: id, Title: "Latency by percentile",
		Caption: "Percentile spectrum from the HdrHistogram logs (x: 1/(1−q), log scale). Each line is one merged distribution."}
	spec := &chartSpec{Kind: "lines", X: axisSpec{Label: "percentile", Log: true, Percentile: true},
		Y: axisSpec{Label: "latency (ms)", Unit: "ms"}}
	for i, s := range series {
		if len(s.Sp.Quantiles) == 0 {
			continue
		}
		ss := seriesSpec{Label: s.Label, Color: seriesColor(i)}
		for j, q := range s.Sp.Quantiles {
			ss.X = append(ss.X, 1/(1-q))
			ss.Y = append(ss.Y, s.Sp.ValuesMs[j])
		}
		spec.Series = append(spec.Series, ss)
	}
	if len(spec.Series) == 0 {
		c.Missing = "No histogram: the run has no .hlog files (imported runs have none)."
		return c
	}
	logY(spec)
	c.Spec, c.Fallback = spec, spectrumTable(series)
	return c
}

// spectrumTable is the spectrum at the percentiles the tables use.
func spectrumTable(series []spectrumSeries) *htmlTable {
	qs := []float64{0.5, 0.9, 0.99, 0.999, 0.9999}
	t := &htmlTable{Head: []string{"Series"}}
	for _, q := range qs {
		t.Head = append(t.Head, "P"+strconv.FormatFloat(q*100, 'f', -1, 64))
	}
	for _, s := range series {
		row := []string{s.Label}
		for _, q := range qs {
			row = append(row, spectrumAt(s.Sp, q))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// spectrumAt is the spectrum's value at q, which it samples exactly at
// the decades; a spectrum too shallow to reach q says so.
func spectrumAt(sp analyze.Spectrum, q float64) string {
	for i, sq := range sp.Quantiles {
		if math.Abs(sq-q) < 1e-9 {
			return analyze.FormatMs(sp.ValuesMs[i])
		}
	}
	return notMeasured
}

// logY switches the y axis to a log scale when the series differ by more
// than 20x (2.x's 50 ms next to 3.x's 1.6 s); a log axis cannot show zero,
// so zeros become gaps.
func logY(spec *chartSpec) {
	lo, hi := math.Inf(1), 0.0
	for _, s := range spec.Series {
		for _, y := range s.Y {
			if y > 0 {
				lo = math.Min(lo, y)
			}
			if !math.IsNaN(y) {
				hi = math.Max(hi, y)
			}
		}
	}
	if hi <= 0 || hi/lo <= 20 {
		return
	}
	spec.Y.Log = true
	spec.Y.Label += " (log scale)"
	for _, s := range spec.Series {
		for i, y := range s.Y {
			if y <= 0 {
				s.Y[i] = math.NaN()
			}
		}
	}
}

// barsChart draws grouped bars: values[series][iteration], NaN where an
// iteration did not measure the figure.
func barsChart(id, title, ylabel, caption string, labels []string, values [][]float64) chart {
	c := chart{ID: id, Title: title, Caption: caption}
	n := 0
	for _, v := range values {
		n = max(n, len(v))
	}
	if n == 0 {
		c.Missing = "No iteration measured this figure."
		return c
	}
	spec := &chartSpec{Kind: "bars", X: axisSpec{Label: "iteration"}, Y: axisSpec{Label: ylabel, Unit: "ms"}}
	for i := range n {
		spec.Categories = append(spec.Categories, strconv.Itoa(i+1))
	}
	t := &htmlTable{Head: append([]string{"Series"}, spec.Categories...)}
	for i, v := range values {
		y := make(numbers, n)
		row := []string{labels[i]}
		for j := range y {
			y[j] = math.NaN()
			if j < len(v) {
				y[j] = v[j]
			}
			row = append(row, fmtMaybe(y[j]))
		}
		spec.Series = append(spec.Series, seriesSpec{Label: labels[i], Color: seriesColor(i), Y: y})
		t.Rows = append(t.Rows, row)
	}
	c.Spec, c.Fallback = spec, t
	return c
}

func fmtMaybe(v float64) string {
	if math.IsNaN(v) {
		return notMeasured
	}
	return analyze.FormatMs(v)
}

// lineSeries is one line of a time chart; X and Y have equal length.
type lineSeries struct {
	Label  string
	X, Y   []float64
	Color  int
	Dashed bool
}

// linesChart draws series over time.
func linesChart(id, title string, y axisSpec, caption, missing string, series []lineSeries) chart {
	c := chart{ID: id, Title: title, Caption: caption}
	spec := &chartSpec{Kind: "lines", X: axisSpec{Label: "time (s)", Unit: "s"}, Y: y}
	for _, s := range series {
		if len(s.X) == 0 {
			continue
		}
		spec.Series = append(spec.Series, seriesSpec{Label: s.Label, Color: seriesColor(s.Color), Dash: s.Dashed,
			X: s.X, Y: append(numbers(nil), s.Y...)})
	}
	if len(spec.Series) == 0 {
		c.Missing = missing
		return c
	}
	logY(spec)
	c.Spec = spec
	return c
}

// ChartWaterfall is the id of the latency ladder's waterfall.
const ChartWaterfall = "latency-waterfall"

// waterfallChart draws each layer's cost as a horizontal bar starting
// where the layers before it ended.
func waterfallChart(layers []LayerCost) chart {
	c := chart{ID: ChartWaterfall, Title: "Where the latency goes",
		Caption: "Each layer's share of the latency, from the client inwards; estimates are marked."}
	if len(layers) == 0 {
		c.Missing = "No layer measured yet."
		return c
	}
	s := seriesSpec{Label: "added latency", Color: seriesColor(0)}
	t := &htmlTable{Head: []string{"Layer", "Added", "Starts at"}}
	sum := 0.0
	var names []string
	for _, l := range layers {
		cost := math.Max(l.Ms, 0)
		name := l.Layer
		if !l.Measured {
			name += " (estimate)"
		}
		names = append(names, name)
		s.Y, s.Base = append(s.Y, cost), append(s.Base, sum)
		t.Rows = append(t.Rows, []string{name, analyze.FormatMs(cost), analyze.FormatMs(sum)})
		sum += cost
	}
	c.Spec = &chartSpec{Kind: "waterfall", X: axisSpec{Label: "layer"}, Y: axisSpec{Label: "latency (ms)", Unit: "ms"},
		Series: []seriesSpec{s}, Categories: names}
	c.Fallback = t
	return c
}
