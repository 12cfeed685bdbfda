package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/authbench/authbench/pkg/redact"
)

// selfContained ends every page's footer.
const selfContained = "Self-contained: the chart library (uPlot) and the data are inline; nothing is loaded from the network."

// htmlPage is what the page template shows. Every report is one file:
// styles, scripts and data inline, nothing fetched.
type htmlPage struct {
	Title    string
	Subtitle []string
	// Context is what the page compares on purpose, said before warnings.
	Context  []string
	Warnings []string
	Summary  []string
	Notes    []string
	Tables   []htmlTable
	Charts   []chart
	// Appendix tables follow the charts.
	Appendix []htmlTable
	Footer   string
	// Assets are inlined when the page has charts to draw.
	Assets *pageAssets
}

// ContextTitle introduces Context.
func (htmlPage) ContextTitle() string { return comparedOnPurpose }

// htmlTable is a titled table; cells are plain text (escaped).
type htmlTable struct {
	ID    string
	Title string
	Head  []string
	Rows  [][]string
	Note  string
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
{{template "style"}}
{{with .Assets}}<style>{{.LibCSS}}</style>
{{end}}
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{range .Subtitle}}<p class="subtitle">{{.}}</p>
{{end}}</header>
{{if .Context}}<section class="notes" id="context"><strong>{{.ContextTitle}}</strong>
<ul>{{range .Context}}<li>{{.}}</li>{{end}}</ul></section>
{{end}}{{if .Warnings}}<section class="warnings" id="warnings"><strong>⚠️ Not directly comparable:</strong>
<ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul></section>
{{end}}{{if .Summary}}<section class="summary" id="summary"><h2>Executive Summary</h2>
{{range .Summary}}<p>{{.}}</p>
{{end}}</section>
{{end}}{{if .Notes}}<section class="notes" id="notes"><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul></section>
{{end}}{{range .Tables}}{{template "table" .}}{{end}}{{if .Charts}}<h2>Charts</h2>
<p class="hint">Hover a chart for its values; drag across it to zoom in, double-click to zoom out; click a legend entry to hide or show its series.</p>
{{end}}{{range .Charts}}{{template "chart" .}}{{end}}{{range .Appendix}}{{template "table" .}}{{end}}<footer>{{.Footer}}</footer>
{{with .Assets}}<script>{{.LibJS}}</script>
<script>{{.ChartsJS}}</script>
{{end}}</body>
</html>
{{define "style"}}<style>
body { font-family: "Liberation Sans", "DejaVu Sans", Arial, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1.5em; color: #1d2330; background: #fff; line-height: 1.45; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #d8dde6; padding-bottom: 0.2em; margin-top: 1.8em; }
.subtitle { color: #556; margin: 0.1em 0; }
.warnings { background: #fff4e5; border-left: 6px solid #f0a020; padding: 0.6em 1em; margin: 1em 0; }
.warnings strong { color: #8a4b00; }
.summary p { font-size: 1.08em; }
.notes { background: #eef4fb; border-left: 6px solid #4a7fc1; padding: 0.6em 1em; }
table { border-collapse: collapse; margin: 0.8em 0 1.2em; font-size: 0.92em; }
section.table { overflow-x: auto; }
th, td { border: 1px solid #d0d5dd; padding: 0.3em 0.6em; text-align: right; }
th { background: #f2f4f7; }
td:first-child, th:first-child { text-align: left; }
figure.chart { margin: 1.2em 0; padding: 0.6em; border: 1px solid #e2e6ec; border-radius: 6px; }
figure.chart h3 { margin: 0 0 0.4em; font-size: 1.05em; }
figure.chart .plot { width: 100%; min-height: 1px; }
figure.chart .uplot { width: 100%; font-family: inherit; }
figure.chart .u-legend { font-size: 0.85em; text-align: left; }
figure.chart .u-legend th { background: none; font-weight: normal; }
figure.chart .u-legend th, figure.chart .u-legend td { border: none; padding: 0.1em 0.4em; }
figure.chart .u-legend .u-value { font-variant-numeric: tabular-nums; min-width: 6em; display: inline-block; }
figure.chart.drawn .fallback { display: none; }
figure.chart .fallback table { margin: 0.3em 0; }
figcaption { color: #556; font-size: 0.88em; margin-top: 0.3em; }
.hint { color: #556; font-size: 0.88em; }
.missing { color: #8a4b00; font-style: italic; }
footer { color: #778; font-size: 0.85em; margin-top: 2em; }
</style>{{end}}{{define "chart"}}<figure class="chart" id="{{.ID}}">
<h3>{{.Title}}</h3>
{{if .Missing}}<p class="missing">{{.Missing}}</p>{{else}}<div class="plot"></div>
<script type="application/json" class="chart-data">{{.Spec}}</script>
<div class="fallback">{{with .Fallback}}<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}<noscript><p class="missing">This chart is drawn by JavaScript, which is off{{if .Fallback}}: its key figures are above{{else}}; the tables above hold the run's figures{{end}}.</p></noscript></div>{{end}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}{{define "table"}}<section class="table" id="{{.ID}}"><h2>{{.Title}}</h2>
<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{if .Note}}<p class="subtitle">{{.Note}}</p>{{end}}</section>
{{end}}`))

// writePage renders page to w, scrubbing secrets as every report does.
func writePage(w io.Writer, page htmlPage, secrets []string) error {
	for _, c := range page.Charts {
		if c.Spec != nil {
			page.Assets = chartAssets()
			break
		}
	}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("rendering html: %w", err)
	}
	if _, err := io.WriteString(w, redact.HTML(b.String(), secrets...)); err != nil {
		return fmt.Errorf("writing html: %w", err)
	}
	return nil
}
