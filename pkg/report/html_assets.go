package report

import (
	_ "embed" // the chart library is compiled into the binary
	"html/template"
)

// The chart library and authbench's chart code, inlined into every HTML
// report so that a report is one file that works offline. assets/README.md
// says where each file comes from and how to upgrade it.
var (
	//go:embed assets/uPlot.iife.min.js
	uPlotJS string
	//go:embed assets/uPlot.min.css
	uPlotCSS string
	//go:embed assets/charts.js
	chartsJS string
)

// pageAssets are the scripts and styles a page with charts inlines. The
// files are ours (pinned, committed), so they are trusted as JS and CSS.
type pageAssets struct {
	LibJS    template.JS
	LibCSS   template.CSS
	ChartsJS template.JS
}

func chartAssets() *pageAssets {
	return &pageAssets{
		LibJS:    template.JS(uPlotJS),   //nolint:gosec // pinned file from assets/
		LibCSS:   template.CSS(uPlotCSS), //nolint:gosec // pinned file from assets/
		ChartsJS: template.JS(chartsJS),  //nolint:gosec // our own file from assets/
	}
}
