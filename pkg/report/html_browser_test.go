//go:build integration

package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/authbench/authbench/pkg/results"
)

// chromium finds Debian's chromium (or chromium-browser), or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (apt-get install -y chromium, or authbench lab install --optional)")
	return ""
}

// console collects what a page logs: console calls, uncaught exceptions
// and the browser's own log entries (a failed load, a blocked fetch).
type console struct {
	mu   sync.Mutex
	msgs []string
}

func (c *console) add(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
}

func (c *console) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

// browse starts a headless chromium driven over the DevTools protocol; it
// is killed when the test ends (and with the test process: chromedp sets
// Pdeathsig).
func browse(t *testing.T) (context.Context, *console) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		// Cancel closes the browser and waits for it, before the user
		// data directory is removed.
		if err := chromedp.Cancel(ctx); err != nil {
			t.Logf("closing chromium: %v", err)
		}
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	c := &console{}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			c.add("console.%s: %s", e.Type, strings.Join(args, " "))
		case *runtime.EventExceptionThrown:
			c.add("exception: %s", e.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			c.add("log %s: %s %s", e.Entry.Level, e.Entry.Text, e.Entry.URL)
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx, c
}

func cdp(t *testing.T, ctx context.Context, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// TestConsoleDetection proves the console check can fail.
func TestConsoleDetection(t *testing.T) {
	ctx, c := browse(t)
	page := filepath.Join(t.TempDir(), "broken.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><p>x</p><script>undefinedFn()</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	cdp(t, ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("p"))
	deadline := time.Now().Add(5 * time.Second)
	for len(c.messages()) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if len(c.messages()) == 0 {
		t.Fatal("a script error was not seen")
	}
}

// nonWhite counts pixels of a PNG that are not (nearly) white.
func nonWhite(t *testing.T, shot []byte) (int, int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return n, b.Dx() * b.Dy()
}

// browserPages are the reports checked in the browser, with the charts
// each must draw.
func browserPages(t *testing.T) map[string]struct {
	render func(*bytes.Buffer) error
	charts []string
} {
	return map[string]struct {
		render func(*bytes.Buffer) error
		charts []string
	}{
		"compare.html": {func(b *bytes.Buffer) error { return CompareHTML(b, cxHTMLComparison(t)) }, allCharts},
		"run.html": {func(b *bytes.Buffer) error {
			run, tl, hists := cxHTMLRun(t)
			return RunHTML(b, run, tl, hists...)
		}, allCharts},
		"imported.html": {func(b *bytes.Buffer) error {
			run := cxReported2x()
			run.Imported = &results.Import{Tool: "hey", Files: []string{"2x.log"}}
			run.Results = run.Results[:1] // one iteration: one bar per chart
			run.Results[0].Components = nil
			return RunHTML(b, run, nil)
		}, []string{ChartIterationP50, ChartIterationP95}},
		"faults.html": {func(b *bytes.Buffer) error {
			run, tl, hists := cxHTMLRun(t)
			at := run.Results[0].Start
			run.Faults = []results.FaultEvent{
				{At: at.Add(time.Second), Link: results.LinkAPIServer, Action: results.FaultSet, DelayMs: 200},
				{At: at.Add(3 * time.Second), Link: results.LinkAPIServer, Action: results.FaultClear},
				{At: at.Add(4 * time.Second), Link: results.LinkKeycloak, Action: results.FaultSet, Down: true, ForMs: 2000},
			}
			if err := RunHTML(b, run, tl, hists...); err != nil || !strings.Contains(b.String(), `"bands":[`) {
				return fmt.Errorf("the faults page has no bands (%v)", err)
			}
			return nil
		}, allCharts},
		"ladder.html": {func(b *bytes.Buffer) error {
			run, tl, hists := cxHTMLRun(t)
			run.Ladder = ladderFixture()
			return RunHTML(b, run, tl, hists...)
		}, append([]string{ChartWaterfall}, allCharts...)},
	}
}

func TestHTMLInChromium(t *testing.T) {
	keep := os.Getenv("AUTHBENCH_KEEP_HTML") // a directory to keep pages and screenshots in
	for name, p := range browserPages(t) {
		t.Run(name, func(t *testing.T) {
			ctx, c := browse(t)
			dir := t.TempDir()
			if keep != "" {
				dir = keep
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var b bytes.Buffer
			if err := p.render(&b); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, name)
			if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			cdp(t, ctx, chromedp.Navigate("file://"+page))
			var drawn int
			cdp(t, ctx, chromedp.Poll(fmt.Sprintf(`document.querySelectorAll("figure.chart.drawn canvas").length >= %d && document.querySelectorAll("figure.chart.drawn canvas").length`, len(p.charts)),
				&drawn, chromedp.WithPollingTimeout(30*time.Second)))
			for _, id := range p.charts {
				checkHover(t, ctx, id, specOf(t, b.String(), id))
			}
			if name == "compare.html" {
				checkToggle(t, ctx, ChartSpectrum)
				checkZoom(t, ctx, ChartSpectrum)
				// A picture of the hovered spectrum, for people to look at.
				hover(t, ctx, ChartSpectrum, 0.75, 0.5)
				var fig []byte
				cdp(t, ctx, chromedp.Screenshot("#"+ChartSpectrum, &fig, chromedp.ByQuery))
				if err := os.WriteFile(filepath.Join(dir, "compare-spectrum-hover.png"), fig, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var shot []byte
			cdp(t, ctx, chromedp.FullScreenshot(&shot, 100))
			if m := c.messages(); len(m) > 0 {
				t.Errorf("console messages:\n%s", strings.Join(m, "\n"))
			}
			n, total := nonWhite(t, shot)
			// Seven charts with lines, bars and text cover far more than 3%.
			if n < total*3/100 {
				t.Errorf("screenshot looks blank: %d of %d pixels not white", n, total)
			}
			shotPath := strings.TrimSuffix(page, ".html") + ".png"
			if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d charts drawn, %d/%d non-white pixels (%s)", name, drawn, n, total, shotPath)
		})
	}
}

// TestHTMLWithoutJavaScript: with scripts off, a chart's key figures are
// still readable as a table.
func TestHTMLWithoutJavaScript(t *testing.T) {
	ctx, _ := browse(t)
	var b bytes.Buffer
	if err := CompareHTML(&b, cxHTMLComparison(t)); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "compare.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var canvases int
	var cells []string
	cdp(t, ctx, emulation.SetScriptExecutionDisabled(true), chromedp.Navigate("file://"+page),
		chromedp.Evaluate(`document.querySelectorAll("canvas").length`, &canvases),
		chromedp.Evaluate(fmt.Sprintf(`[...document.querySelectorAll("#%s .fallback td")].filter(e => e.offsetHeight > 0).map(e => e.textContent)`, ChartSpectrum), &cells))
	if canvases != 0 {
		t.Errorf("%d canvases drawn with scripts off", canvases)
	}
	if len(cells) < 2 || cells[0] != "2.x" {
		t.Errorf("spectrum fallback table cells = %q, want 2.x's figures visible", cells)
	}
}

// plotBox scrolls a chart into view and returns its plotting area in
// viewport pixels (left, top, width, height).
func plotBox(t *testing.T, ctx context.Context, id string) [4]float64 {
	t.Helper()
	var box [4]float64
	js := fmt.Sprintf(`new Promise(done => {
		document.getElementById(%q).scrollIntoView({block: "center"});
		requestAnimationFrame(() => requestAnimationFrame(() => {
			const r = document.querySelector("#%s .u-over").getBoundingClientRect();
			done([r.left, r.top, r.width, r.height]);
		}));
	})`, id, id)
	cdp(t, ctx, chromedp.Evaluate(js, &box, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if box[2] < 100 || box[3] < 50 {
		t.Fatalf("chart %s: plotting area %v is too small", id, box)
	}
	return box
}

// legend returns the legend's value cells: the x value first, then one per
// series.
func legend(t *testing.T, ctx context.Context, id string) []string {
	t.Helper()
	var vals []string
	cdp(t, ctx, chromedp.Evaluate(fmt.Sprintf(`[...document.querySelectorAll("#%s .u-legend .u-series .u-value")].map(e => e.textContent)`, id), &vals))
	return vals
}

// hover moves the mouse to a fraction of the chart's plotting area and
// returns the legend's values there.
func hover(t *testing.T, ctx context.Context, id string, fx, fy float64) []string {
	t.Helper()
	box := plotBox(t, ctx, id)
	cdp(t, ctx, chromedp.MouseEvent(input.MouseMoved, box[0]+fx*box[2], box[1]+fy*box[3]))
	return legend(t, ctx, id)
}

// value matches a figure with its unit, as charts.js prints it.
var value = regexp.MustCompile(`^-?[0-9][0-9,]*(\.[0-9]+)?(e-?[0-9]+)? (ms|req/s|cores|MB|s)$`)

// checkHover: before the mouse is over a chart its legend shows no value;
// hovering shows the x value and each visible series' value with its unit,
// a value that is in the chart's data.
func checkHover(t *testing.T, ctx context.Context, id string, spec *chartSpec) {
	t.Helper()
	cdp(t, ctx, chromedp.MouseEvent(input.MouseMoved, 1, 1))
	before := legend(t, ctx, id)
	if len(before) < 2 {
		t.Fatalf("chart %s: legend %q has no series", id, before)
	}
	for _, v := range before[1:] {
		if v != "—" {
			t.Errorf("chart %s: legend shows %q before any hover", id, v)
		}
	}
	fx, fy := 0.5, 0.5
	if id == ChartWaterfall {
		fx, fy = 0.1, 0.1 // the first layer's bar, top left
	}
	after := hover(t, ctx, id, fx, fy)
	if after[0] == "—" || after[0] == "" {
		t.Errorf("chart %s: hovering shows no x value: %q", id, after)
	}
	n := 0
	for i, v := range after[1:] {
		if !value.MatchString(v) {
			continue
		}
		n++
		if i < len(spec.Series) && !inData(t, v, spec.Series[i].Y) {
			t.Errorf("chart %s: hovering shows %q for %s, which is not in its data", id, v, spec.Series[i].Label)
		}
	}
	if n == 0 {
		t.Errorf("chart %s: hovering shows no value: %q", id, after)
	}
}

// inData: shown, "1,234 ms" (four significant digits), is one of ys.
func inData(t *testing.T, shown string, ys numbers) bool {
	t.Helper()
	f := strings.Fields(strings.ReplaceAll(shown, ",", ""))
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("not a number: %q", shown)
	}
	for _, y := range ys {
		if math.Abs(y-v) <= 5e-4*math.Abs(y)+1e-9 || math.Abs(y) >= 1000 && math.Abs(math.Round(y)-v) < 1e-9 {
			return true
		}
	}
	return false
}

// ms parses "1,234 ms" or "12.5 ms".
func ms(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(s, " ms"), ",", ""), 64)
	if err != nil {
		t.Fatalf("not a latency: %q", s)
	}
	return v
}

// pctOf parses the spectrum's x value, "99.9%".
func pctOf(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !strings.HasSuffix(s, "%") {
		t.Fatalf("not a percentile: %q", s)
	}
	return v
}

// checkToggle clicks a series' legend entry: the series goes off, and a
// second click brings it back.
func checkToggle(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	plotBox(t, ctx, id)
	sel := fmt.Sprintf("#%s .u-legend .u-series:nth-child(2)", id)
	for i, want := range []bool{true, false} {
		var ok bool
		err := chromedp.Run(ctx, chromedp.Click(sel+" .u-label", chromedp.ByQuery),
			chromedp.Poll(fmt.Sprintf(`document.querySelector(%q).classList.contains("u-off") === %v`, sel, want), &ok,
				chromedp.WithPollingTimeout(3*time.Second)))
		if err != nil {
			t.Errorf("chart %s: after click %d, series off != %v: %v", id, i+1, want, err)
		}
		// Apart, so that the two clicks do not make a double click.
		time.Sleep(600 * time.Millisecond)
	}
}

// checkZoom drags across the spectrum's tail: afterwards the left edge of
// the plot is deep in the tail, where latency is higher than at the middle
// of the unzoomed chart.
func checkZoom(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	mid := hover(t, ctx, id, 0.5, 0.5)
	box := plotBox(t, ctx, id)
	y := box[1] + box[3]/2
	x0, x1 := box[0]+0.7*box[2], box[0]+0.98*box[2]
	cdp(t, ctx,
		chromedp.MouseEvent(input.MouseMoved, x0, y),
		chromedp.MouseEvent(input.MousePressed, x0, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.ActionFunc(func(ctx context.Context) error {
			return input.DispatchMouseEvent(input.MouseMoved, (x0+x1)/2, y).WithButton(input.Left).WithButtons(1).Do(ctx)
		}),
		chromedp.ActionFunc(func(ctx context.Context) error {
			return input.DispatchMouseEvent(input.MouseMoved, x1, y).WithButton(input.Left).WithButtons(1).Do(ctx)
		}),
		chromedp.MouseEvent(input.MouseReleased, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	left := hover(t, ctx, id, 0.01, 0.5)
	if pctOf(t, left[0]) <= pctOf(t, mid[0]) {
		t.Errorf("after zooming into the tail the left edge is at %s, not beyond %s", left[0], mid[0])
	}
	if value.MatchString(left[1]) && value.MatchString(mid[1]) && ms(t, left[1]) < ms(t, mid[1]) {
		t.Errorf("the tail's latency %s is below the middle's %s", left[1], mid[1])
	}
	t.Logf("spectrum: middle %q, after zoom left edge %q", mid, left)
	cdp(t, ctx, chromedp.MouseEvent(input.MouseMoved, x0, y), chromedp.MouseClickXY(x0, y, chromedp.ClickCount(2)))
	if again := hover(t, ctx, id, 0.5, 0.5); again[0] != mid[0] {
		t.Errorf("a double click did not zoom out: the middle is at %s, was %s", again[0], mid[0])
	}
}
