package report

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

var allCharts = []string{ChartSpectrum, ChartIterationP50, ChartIterationP95, ChartThroughputTime, ChartLatencyTime, ChartComponentCPU, ChartComponentMem}

// cxHTMLComparison builds the migration reports' 2.x vs 3.x with histograms and
// timelines written to run directories, as `authbench compare` sees them.
func cxHTMLComparison(t *testing.T) *analyze.Comparison {
	t.Helper()
	dir := t.TempDir()
	a, b := cxReported2x(), cxReported3x()
	da, db := cxRunDir(t, dir, a, 1), cxRunDir(t, dir, b, 2)
	ra, err := store.Read(da)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := store.Read(db)
	if err != nil {
		t.Fatal(err)
	}
	files := []analyze.RunFiles{cxRunFiles(t, da, ra), cxRunFiles(t, db, rb)}
	return cxCompare(t, []*results.Run{ra, rb}, analyze.CompareOptions{Files: files})
}

// cxHTMLRun is the 2.x run with its histograms and timeline loaded back.
func cxHTMLRun(t *testing.T) (*results.Run, *results.Timeline, []analyze.Histogram) {
	t.Helper()
	dir := cxRunDir(t, t.TempDir(), cxReported2x(), 1)
	run, err := store.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := store.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := store.ReadHistograms(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	return run, tl, analyze.Histograms(run, hs)
}

// cxRunFiles reads what a comparison takes beside run.json, as
// `authbench compare` does.
func cxRunFiles(t *testing.T, dir string, run *results.Run) analyze.RunFiles {
	t.Helper()
	hs, err := store.ReadHistograms(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := store.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	return analyze.RunFiles{Dir: dir, Hists: hs, Timeline: tl}
}

// figure returns the <figure> element with the given id.
func figure(html, id string) string {
	start := strings.Index(html, `<figure class="chart" id="`+id+`">`)
	if start < 0 {
		return ""
	}
	end := strings.Index(html[start:], "</figure>")
	return html[start : start+end]
}

// external matches anything a browser would fetch. Inline <script> and
// <style> elements are fine; a src, a link or an import is not.
var external = regexp.MustCompile(`(?i)<script[^>]*\ssrc=|<link|<img|<iframe|\bsrc=["']|url\(\s*['"]?(https?:|//)|@import`)

func checkSelfContained(t *testing.T, html string) {
	t.Helper()
	if m := external.FindString(html); m != "" {
		t.Errorf("page is not self-contained: %q", m)
	}
	if !strings.Contains(html, uPlotJS) || !strings.Contains(html, chartsJS) {
		t.Error("the chart library is not inlined")
	}
}

var chartData = regexp.MustCompile(`(?s)<script type="application/json" class="chart-data">(.*?)</script>`)

// specOf decodes the chart data inside the figure with the given id.
func specOf(t *testing.T, html, id string) *chartSpec {
	t.Helper()
	m := chartData.FindStringSubmatch(figure(html, id))
	if m == nil {
		return nil
	}
	var spec chartSpec
	if err := json.Unmarshal([]byte(m[1]), &spec); err != nil {
		t.Fatalf("chart %s: data is not JSON: %v\n%.300s", id, err, m[1])
	}
	return &spec
}

// checkCharts wants every chart drawn from data with at least one series.
func checkCharts(t *testing.T, html string) {
	t.Helper()
	for _, id := range allCharts {
		spec := specOf(t, html, id)
		if spec == nil || len(spec.Series) == 0 || len(spec.Series[0].Y) == 0 {
			t.Errorf("chart %s has no data: %.200q", id, figure(html, id))
		}
	}
}

func seriesLabels(spec *chartSpec) []string {
	var out []string
	for _, s := range spec.Series {
		out = append(out, s.Label)
	}
	return out
}

func TestCompareHTML(t *testing.T) {
	var b bytes.Buffer
	if err := CompareHTML(&b, cxHTMLComparison(t)); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	checkSelfContained(t, html)
	checkCharts(t, html)
	spectrum := specOf(t, html, ChartSpectrum)
	if spectrum == nil {
		t.Fatal("no spectrum")
	}
	if !spectrum.X.Log || !spectrum.X.Percentile {
		t.Errorf("spectrum x axis = %+v, want HdrHistogram's log 1/(1-q)", spectrum.X)
	}
	if got := seriesLabels(spectrum); !slices.Equal(got, []string{"2.x", "3.x"}) {
		t.Errorf("spectrum series = %q, want one per side", got)
	}
	// 1/(1-q) reaches 1000 (99.9%) with the migration reports' request counts.
	if xs := spectrum.Series[0].X; len(xs) == 0 || xs[len(xs)-1] < 999 {
		t.Errorf("spectrum does not reach the tail: %v", xs)
	}
	for _, want := range []string{">P99.9<", `id="warnings"`, "queueing time", "Executive Summary", "kube-auth-proxy"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Index(html, `id="warnings"`) > strings.Index(html, `id="summary"`) {
		t.Error("warnings must come before the summary")
	}
}

func TestRunHTML(t *testing.T) {
	run, tl, hists := cxHTMLRun(t)
	var b bytes.Buffer
	if err := RunHTML(&b, run, tl, hists...); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	checkSelfContained(t, html)
	checkCharts(t, html)
	lat := specOf(t, html, ChartLatencyTime)
	if lat == nil || len(lat.Series) != 2 || lat.Series[0].Dash || !lat.Series[1].Dash {
		t.Errorf("latency over time wants a solid P50 and a dashed P99: %+v", lat)
	}
}

// TestChartDataEscaping: target names end up in the charts' JSON, inside a
// <script> element; a name must not be able to close it.
func TestChartDataEscaping(t *testing.T) {
	evil := `</script><script>alert(1)</script><!--`
	run, tl, hists := cxHTMLRun(t)
	for i := range run.Results {
		run.Results[i].Target = evil
	}
	for i := range tl.Series {
		tl.Series[i].Target = evil
	}
	for i := range hists {
		hists[i].Target = evil
	}
	var b bytes.Buffer
	if err := RunHTML(&b, run, tl, hists...); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Contains(html, "<script>alert") || strings.Contains(html, "<!--") {
		t.Error("a target name injected markup into the page")
	}
	// The library, charts.js and one data block per chart: nothing else.
	if got, want := strings.Count(html, "<script"), 2+len(allCharts); got != want {
		t.Errorf("%d <script> elements, want %d", got, want)
	}
	spec := specOf(t, html, ChartSpectrum)
	if spec == nil || len(spec.Series) == 0 || spec.Series[0].Label != evil {
		t.Errorf("the name did not survive the round trip through JSON: %+v", spec)
	}
}

func TestNumbersJSON(t *testing.T) {
	for _, tc := range []struct {
		in   numbers
		want string
	}{
		{nil, "[]"},
		{numbers{1, 2.5, 0.001}, "[1,2.5,0.001]"},
		{numbers{math.NaN(), 3, math.Inf(1)}, "[null,3,null]"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			got, err := json.Marshal(tc.in)
			if err != nil || string(got) != tc.want {
				t.Errorf("Marshal(%v) = %s, %v; want %s", []float64(tc.in), got, err, tc.want)
			}
		})
	}
}

func TestRunHTMLImportedSaysWhatIsMissing(t *testing.T) {
	run := cxReported2x()
	run.Imported = &results.Import{Tool: "hey", Files: []string{"2x.log"}}
	for i := range run.Results {
		run.Results[i].Components = nil
		run.Results[i].Unavailable = []string{"p999", "p9999", "stddev", "timeline", "histogram"}
	}
	var b bytes.Buffer
	if err := RunHTML(&b, run, nil); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if f := figure(html, ChartSpectrum); !strings.Contains(f, "No histogram") || specOf(t, html, ChartSpectrum) != nil {
		t.Errorf("spectrum without histograms: %q", f)
	}
	if f := figure(html, ChartThroughputTime); !strings.Contains(f, "No timeline") {
		t.Errorf("throughput without timeline: %q", f)
	}
	if specOf(t, html, ChartIterationP50) == nil {
		t.Error("per-iteration bars need only run.json and should render")
	}
}

func TestHTMLNoSecrets(t *testing.T) {
	run, tl, hists := cxHTMLRun(t)
	run.Plan.Targets[0].Headers = fxSecretHeaders()
	run.Findings = []results.Finding{{Severity: "warning", Evidence: "saw Bearer " + secretBearer, Advice: "none"}}
	run.Name = "run-" + secretAPIKey
	var b bytes.Buffer
	if err := RunHTML(&b, run, tl, hists...); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), secretBearer) {
		t.Error("token leaked into the HTML")
	}
	if strings.Contains(b.String(), "<redacted>") {
		t.Error("redaction must not produce a tag in HTML")
	}
	if strings.Contains(b.String(), secretAPIKey) || !strings.Contains(b.String(), "run-"+redact.Placeholder) {
		t.Error("the secret in the run's name is not redacted by pkg/redact's HTML form")
	}
}

func TestWaterfall(t *testing.T) {
	got, err := Waterfall([]LayerCost{{"route", 5, true}, {"oauth-proxy", 10, true}, {"backend", 50, false}, {"unattributed", -2, true}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, `<figure class="chart" id="`+ChartWaterfall+`">`) {
		t.Errorf("waterfall = %.200q", got)
	}
	spec := specOf(t, got, ChartWaterfall)
	if spec == nil || spec.Kind != "waterfall" || len(spec.Series) != 1 {
		t.Fatalf("waterfall spec = %+v", spec)
	}
	if !slices.Equal(spec.Categories, []string{"route", "oauth-proxy", "backend (estimate)", "unattributed"}) {
		t.Errorf("layers = %q: an unmeasured layer is marked as an estimate", spec.Categories)
	}
	s := spec.Series[0]
	// Each bar starts where the one before ended; a negative one is zero.
	if !slices.Equal([]float64(s.Base), []float64{0, 5, 15, 65}) || !slices.Equal([]float64(s.Y), []float64{5, 10, 50, 0}) {
		t.Errorf("bars: base %v, cost %v", s.Base, s.Y)
	}
	empty, err := Waterfall(nil)
	if err != nil || !strings.Contains(empty, "No layer measured") {
		t.Errorf("empty waterfall = %q, %v", empty, err)
	}
}

func TestHTMLInputErrors(t *testing.T) {
	if err := RunHTML(&bytes.Buffer{}, nil, nil); err == nil {
		t.Error("nil run: want an error")
	}
	if err := CompareHTML(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil comparison: want an error")
	}
	run, tl, hists := cxHTMLRun(t)
	if err := RunHTML(brokenWriter{}, run, tl, hists...); err == nil {
		t.Error("write error not returned")
	}
}

// TestLinesChartZerosOnLogScale: real timelines have zero-request seconds
// next to busy ones; a log axis cannot show zero, so zeros become gaps.
func TestLinesChartZerosOnLogScale(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []lineSeries
		log    bool
		wantY  [][]float64
	}{
		{"450x range", []lineSeries{
			{Label: "a", X: []float64{0, 1, 2}, Y: []float64{0, 900, 3}},
			{Label: "b", Color: 1, X: []float64{0, 1}, Y: []float64{2, 0}},
		}, true, [][]float64{{math.NaN(), 900, 3}, {2, math.NaN()}}},
		{"narrow range", []lineSeries{
			{Label: "a", X: []float64{0, 1}, Y: []float64{0, 10}},
		}, false, [][]float64{{0, 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := linesChart("x", "t", axisSpec{Label: "y"}, "", "none", tc.series)
			if c.Missing != "" || c.Spec == nil {
				t.Fatalf("chart not drawn: %q", c.Missing)
			}
			if c.Spec.Y.Log != tc.log || strings.Contains(c.Spec.Y.Label, "log scale") != tc.log {
				t.Errorf("y axis = %+v, want log %v", c.Spec.Y, tc.log)
			}
			for i, s := range c.Spec.Series {
				if !slices.EqualFunc([]float64(s.Y), tc.wantY[i], func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
					t.Errorf("series %d: y = %v, want %v", i, s.Y, tc.wantY[i])
				}
			}
			if tc.series[0].Y[0] != 0 {
				t.Error("the caller's data was changed")
			}
		})
	}
}
