//go:build integration

package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium finds Debian's chromium (or chromium-browser), or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (apt-get install -y chromium)")
	return ""
}

// headless runs chromium on a local file with networking features off and
// console logging to stderr; it returns stdout and stderr.
func headless(t *testing.T, bin, page string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleLine matches what chromium logs for any console message; the
// pages have no script, so any message (an error, a failed load) fails.
var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// nonWhite counts pixels that are not (nearly) white.
func nonWhite(t *testing.T, path string) (int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
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

// TestConsoleDetection proves the console check can fail.
func TestConsoleDetection(t *testing.T) {
	bin := chromium(t)
	page := filepath.Join(t.TempDir(), "broken.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><p>x</p><script>undefinedFn()</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr := headless(t, bin, page, "--dump-dom")
	if !consoleLine.MatchString(stderr) {
		t.Fatalf("a script error was not seen on the console; stderr:\n%s", stderr)
	}
}

func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	keep := os.Getenv("AUTHBENCH_KEEP_HTML") // a directory to keep pages and screenshots in
	pages := map[string]func(*bytes.Buffer) error{
		"compare.html": func(b *bytes.Buffer) error { return CompareHTML(b, cxHTMLComparison(t)) },
		"run.html": func(b *bytes.Buffer) error {
			run, tl, hists := cxHTMLRun(t)
			return RunHTML(b, run, tl, hists...)
		},
	}
	for name, render := range pages {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if keep != "" {
				dir = keep
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var b bytes.Buffer
			if err := render(&b); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, name)
			if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, stderr := headless(t, bin, page, "--dump-dom")
			if m := consoleLine.FindAllString(stderr, -1); len(m) > 0 {
				t.Errorf("console messages:\n%s", strings.Join(m, "\n"))
			}
			for _, id := range allCharts {
				f := figure(dom, id)
				if f == "" || !strings.Contains(f, "<svg") || !strings.Contains(f, "<path") {
					t.Errorf("chart %s missing or empty in the DOM", id)
				}
			}
			shot := strings.TrimSuffix(page, ".html") + ".png"
			headless(t, bin, page, "--window-size=1200,4200", "--screenshot="+shot)
			n, total := nonWhite(t, shot)
			// Seven charts with lines, bars and text cover far more than 3%.
			if n < total*3/100 {
				t.Errorf("screenshot looks blank: %d of %d pixels not white", n, total)
			}
			t.Logf("%s: %d/%d non-white pixels (%s)", name, n, total, shot)
		})
	}
}
