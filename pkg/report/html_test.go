package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

var allCharts = []string{ChartSpectrum, ChartIterationP50, ChartIterationP95, ChartThroughputTime, ChartLatencyTime, ChartComponentCPU, ChartComponentMem}

// cxHTMLComparison builds the seeds' 2.x vs 3.x with histograms and
// timelines written to run directories, as `authbench compare` sees them.
func cxHTMLComparison(t *testing.T) *analyze.Comparison {
	t.Helper()
	dir := t.TempDir()
	a, b := cxSeed2x(), cxSeed3x()
	da, db := cxRunDir(t, dir, a, 1), cxRunDir(t, dir, b, 2)
	ra, err := store.Read(da)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := store.Read(db)
	if err != nil {
		t.Fatal(err)
	}
	return cxCompare(t, []*results.Run{ra, rb}, analyze.CompareOptions{Dirs: []string{da, db}})
}

// cxHTMLRun is the 2.x run with its histograms and timeline loaded back.
func cxHTMLRun(t *testing.T) (*results.Run, *results.Timeline, []analyze.Histogram) {
	t.Helper()
	dir := cxRunDir(t, t.TempDir(), cxSeed2x(), 1)
	run, err := store.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := store.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	hists, err := analyze.LoadHistograms(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	return run, tl, hists
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

// external matches anything a browser would fetch: the SVG namespace
// declarations are names, not fetches.
var external = regexp.MustCompile(`(?i)<script|<link|<img|<iframe|\bsrc=|url\(\s*['"]?(https?:|//)|@import`)

func checkSelfContained(t *testing.T, html string) {
	t.Helper()
	if m := external.FindString(html); m != "" {
		t.Errorf("page is not self-contained: %q", m)
	}
	if strings.Contains(html, "<?xml") {
		t.Error("an XML declaration was left inside the HTML")
	}
}

func TestCompareHTML(t *testing.T) {
	var b bytes.Buffer
	if err := CompareHTML(&b, cxHTMLComparison(t)); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	checkSelfContained(t, html)
	for _, id := range allCharts {
		f := figure(html, id)
		if !strings.Contains(f, "<svg") {
			t.Errorf("chart %s has no SVG: %.200q", id, f)
		}
	}
	spectrum := figure(html, ChartSpectrum)
	for _, want := range []string{">90%<", ">99%<", ">99.9%<", ">2.x<", ">3.x<"} {
		if !strings.Contains(spectrum, want) {
			t.Errorf("spectrum lacks %q (HdrHistogram-style axis, one line per side)", want)
		}
	}
	for _, want := range []string{`id="warnings"`, "queueing time", "Executive Summary", "kube-auth-proxy"} {
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
	for _, id := range allCharts {
		if !strings.Contains(figure(html, id), "<svg") {
			t.Errorf("chart %s has no SVG", id)
		}
	}
}

func TestRunHTMLImportedSaysWhatIsMissing(t *testing.T) {
	run := cxSeed2x()
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
	if f := figure(html, ChartSpectrum); !strings.Contains(f, "No histogram") || strings.Contains(f, "<svg") {
		t.Errorf("spectrum without histograms: %q", f)
	}
	if f := figure(html, ChartThroughputTime); !strings.Contains(f, "No timeline") {
		t.Errorf("throughput without timeline: %q", f)
	}
	if !strings.Contains(figure(html, ChartIterationP50), "<svg") {
		t.Error("per-iteration bars need only run.json and should render")
	}
}

func TestHTMLNoSecrets(t *testing.T) {
	run, tl, hists := cxHTMLRun(t)
	run.Plan.Targets[0].Headers = fxSecretHeaders()
	run.Findings = []results.Finding{{Severity: "warning", Evidence: "saw Bearer " + secretBearer, Advice: "none"}}
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
}

func TestWaterfall(t *testing.T) {
	got, err := Waterfall([]LayerCost{{"route", 5, true}, {"oauth-proxy", 10, true}, {"backend", 50, false}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, `<figure class="chart" id="`+ChartWaterfall+`">`) || !strings.Contains(got, "<svg") {
		t.Errorf("waterfall = %.200q", got)
	}
	if !strings.Contains(got, "backend (estimate)") {
		t.Error("unmeasured layer not marked as an estimate")
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
// next to busy ones; a log axis cannot show zero, and gonum panics on it.
func TestLinesChartZerosOnLogScale(t *testing.T) {
	series := []lineSeries{
		{Label: "a", XY: plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 900}, {X: 2, Y: 3}}},
		{Label: "b", Color: 1, XY: plotter.XYs{{X: 0, Y: 2}, {X: 1, Y: 0}}},
	}
	c := linesChart("x", "t", "y", "", "none", series)
	if c.Missing != "" || !strings.Contains(string(c.SVG), "<svg") {
		t.Fatalf("chart not rendered: %q", c.Missing)
	}
	if !strings.Contains(string(c.SVG), "log scale") {
		t.Error("a 450x range should use a log axis")
	}
}
