package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/authbench/authbench/pkg/analyze"
)

// chart is one figure of an HTML report: an inline SVG rendered by gonum
// plot, or, when the data is missing, the reason instead of a picture.
type chart struct {
	ID      string
	Title   string
	Caption string
	SVG     template.HTML
	Missing string
}

// Chart size in points; the SVG scales to the page width.
const (
	chartW = 7 * vg.Inch
	chartH = 3.6 * vg.Inch
)

// svgProlog matches what vgsvg writes before <svg>: inline SVG needs no
// XML declaration.
var (
	svgProlog = regexp.MustCompile(`(?s)^.*?(<svg )`)
	svgSize   = regexp.MustCompile(`<svg width="[^"]*" height="[^"]*"`)
)

// renderPlot draws p as an SVG element that scales with the page. gonum
// plot panics on data it cannot draw (a zero on a log axis); that becomes
// an error, so that one odd series costs a chart, not the report.
func renderPlot(p *plot.Plot) (svg template.HTML, err error) {
	defer func() {
		if r := recover(); r != nil {
			svg, err = "", fmt.Errorf("rendering chart: %v", r)
		}
	}()
	sansFonts(p)
	c := vgsvg.New(chartW, chartH)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("rendering chart: %w", err)
	}
	s := svgProlog.ReplaceAllString(b.String(), "$1")
	s = svgSize.ReplaceAllString(s, `<svg role="img" width="100%" preserveAspectRatio="xMidYMid meet"`)
	// The SVG is generated here and vgsvg escapes every text it draws.
	return template.HTML(s), nil //nolint:gosec
}

// sansFonts switches every text of p to Liberation Sans, which browsers
// without it replace by their sans-serif: closer in width than serif.
func sansFonts(p *plot.Plot) {
	p.Title.TextStyle.Font.Variant = "Sans"
	p.X.Label.TextStyle.Font.Variant = "Sans"
	p.Y.Label.TextStyle.Font.Variant = "Sans"
	p.X.Tick.Label.Font.Variant = "Sans"
	p.Y.Tick.Label.Font.Variant = "Sans"
	p.Legend.TextStyle.Font.Variant = "Sans"
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

func seriesColor(i int) color.Color { return plotutil.Color(i) }

// finish renders p into c, or records why it could not.
func finish(c chart, p *plot.Plot) chart {
	svg, err := renderPlot(p)
	if err != nil {
		c.Missing = err.Error()
		return c
	}
	c.SVG = svg
	return c
}

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
	p := newPlot(c.Title, "percentile", "latency (ms)")
	p.X.Scale = plot.LogScale{}
	lo, hi, maxX := math.Inf(1), 0.0, 1.0
	n := 0
	for i, s := range series {
		var xy plotter.XYs
		for j, q := range s.Sp.Quantiles {
			v := math.Max(s.Sp.ValuesMs[j], 0.001)
			xy = append(xy, plotter.XY{X: 1 / (1 - q), Y: v})
			lo, hi, maxX = math.Min(lo, v), math.Max(hi, v), math.Max(maxX, 1/(1-q))
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			continue
		}
		l.Color = seriesColor(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Label, l)
		n++
	}
	if n == 0 {
		c.Missing = "No histogram: the run has no .hlog files (imported runs have none)."
		return c
	}
	p.X.Tick.Marker = percentileTicks(maxX)
	p.X.Min, p.X.Max = 1, maxX
	// Headroom above the highest line keeps the legend off the lines.
	p.Y.Min, p.Y.Max = 0, hi*1.3
	if hi/lo > 20 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Label.Text = "latency (ms, log scale)"
		p.Y.Min, p.Y.Max = lo, hi*4
	}
	return finish(c, p)
}

// percentileTicks labels decades of 1/(1-q) as 0%, 90%, 99%, 99.9% ...
func percentileTicks(maxX float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for d := 0; math.Pow(10, float64(d)) <= maxX*1.0001; d++ {
		label := "0%"
		if d > 0 {
			label = strconv.FormatFloat(100-100/math.Pow(10, float64(d)), 'f', -1, 64) + "%"
		}
		ticks = append(ticks, plot.Tick{Value: math.Pow(10, float64(d)), Label: label})
	}
	return ticks
}

// barsChart draws grouped bars: values[series][iteration].
func barsChart(id, title, ylabel, caption string, labels []string, values [][]float64) chart {
	c := chart{ID: id, Title: title, Caption: caption}
	p := newPlot(title, "iteration", ylabel)
	n := 0
	for _, v := range values {
		n = max(n, len(v))
	}
	if n == 0 || len(values) == 0 {
		c.Missing = "No iteration measured this figure."
		return c
	}
	w := vg.Points(math.Min(24, 300/float64(n*len(values))))
	for i, v := range values {
		b, err := plotter.NewBarChart(plotter.Values(v), w)
		if err != nil {
			continue
		}
		b.Color = seriesColor(i)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(len(values)-1)/2) * w
		p.Add(b)
		p.Legend.Add(labels[i], b)
	}
	var names []string
	for i := range n {
		names = append(names, strconv.Itoa(i+1))
	}
	p.NominalX(names...)
	// Headroom above the tallest bar keeps the legend off the bars.
	top := 0.0
	for _, v := range values {
		for _, x := range v {
			top = math.Max(top, x)
		}
	}
	p.Y.Min, p.Y.Max = 0, top*1.3
	p.Y.Tick.Marker = plainTicks{}
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	return finish(c, p)
}

// lineSeries is one line of a time chart.
type lineSeries struct {
	Label  string
	XY     plotter.XYs
	Color  int
	Dashed bool
}

// linesChart draws series over time.
func linesChart(id, title, ylabel, caption, missing string, series []lineSeries) chart {
	c := chart{ID: id, Title: title, Caption: caption}
	p := newPlot(title, "time (s)", ylabel)
	// Before the lines are made: they copy the points scaleY may clamp.
	scaleY(p, series)
	n := 0
	for _, s := range series {
		if len(s.XY) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.XY)
		if err != nil {
			continue
		}
		l.Color = seriesColor(s.Color)
		l.Width = vg.Points(1.2)
		if s.Dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(s.Label, l)
		n++
	}
	if n == 0 {
		c.Missing = missing
		return c
	}
	p.X.Tick.Marker = plainTicks{}
	return finish(c, p)
}

// scaleY leaves headroom for the legend, and switches to a log scale when
// the series differ by more than 20x (2.x's 50 ms next to 3.x's 1.6 s).
func scaleY(p *plot.Plot, series []lineSeries) {
	lo, hi := math.Inf(1), 0.0
	for _, s := range series {
		for _, xy := range s.XY {
			if xy.Y > 0 {
				lo = math.Min(lo, xy.Y)
			}
			hi = math.Max(hi, xy.Y)
		}
	}
	p.Y.Tick.Marker = plainTicks{}
	p.Y.Min, p.Y.Max = 0, math.Max(hi*1.35, 1e-9)
	if hi > 0 && hi/lo > 20 {
		for _, s := range series {
			for i := range s.XY {
				s.XY[i].Y = math.Max(s.XY[i].Y, lo)
			}
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = lo, hi*5
		p.Y.Label.Text += " (log scale)"
	}
}

// plainTicks are gonum's default ticks printed without trailing zeros
// ("250", not "250.00").
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// ChartWaterfall is the id of the latency ladder's waterfall.
const ChartWaterfall = "latency-waterfall"

// waterfallChart draws each layer's cost as a horizontal bar offset by the
// layers before it: an invisible base bar with the cost stacked on it.
func waterfallChart(layers []LayerCost) chart {
	c := chart{ID: ChartWaterfall, Title: "Where the latency goes",
		Caption: "Each layer's share of the latency, from the client inwards; estimates are marked."}
	if len(layers) == 0 {
		c.Missing = "No layer measured yet."
		return c
	}
	base, cost := make(plotter.Values, len(layers)), make(plotter.Values, len(layers))
	var names []string
	sum := 0.0
	for i, l := range layers {
		base[i], cost[i] = sum, math.Max(l.Ms, 0)
		sum += cost[i]
		name := l.Layer
		if !l.Measured {
			name += " (estimate)"
		}
		names = append(names, name)
	}
	p := newPlot(c.Title, "latency (ms)", "")
	w := vg.Points(18)
	under, err := plotter.NewBarChart(base, w)
	if err != nil {
		c.Missing = err.Error()
		return c
	}
	under.Horizontal, under.Color, under.LineStyle.Width = true, color.Transparent, 0
	bars, err := plotter.NewBarChart(cost, w)
	if err != nil {
		c.Missing = err.Error()
		return c
	}
	bars.Horizontal, bars.Color, bars.LineStyle.Width = true, seriesColor(0), 0
	bars.StackOn(under)
	p.Add(under, bars)
	p.NominalY(names...)
	return finish(c, p)
}
