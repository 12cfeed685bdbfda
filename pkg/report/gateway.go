package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// gatewayHead is the gateway table's header, in the summary and the HTML.
var gatewayHead = []string{"Target", "Iter.", "Gateway", "Requests (run / gateway)", "Responses", "ext_authz ok / denied / error",
	"403s by class (run)", "ext_authz time", "Upstream time", "Gateway total"}

// gatewayNote says how to read the table.
const gatewayNote = "The gateway's own account, read from its metrics endpoint (Envoy's admin /stats/prometheus, HAProxy's exporter) just before and after each iteration; " +
	"requests in flight at those edges make it differ from the run's by up to the concurrency. " +
	"Envoy's request times are cumulative histograms with fixed buckets: a percentile is known only to its bucket, shown as (low, high] ms. " +
	"Envoy records its cluster request times in whole milliseconds, so a call under 1 ms counts as 0 and the means of fast calls read low; " +
	"its access log's microsecond timings (the ladder's gateway hops) are the finer account. " +
	"HAProxy keeps running means of its last 1,024 requests, read at the iteration's end. " +
	"ext_authz error counts calls that failed or timed out, which Envoy answers with the same 403 as a denial; the run tells them apart by the lab gateway's details header."

// gatewayRows are one row per result with a gateway account.
func gatewayRows(rs []results.Result) [][]string {
	var rows [][]string
	for _, r := range rs {
		g := r.Gateway
		if g == nil {
			continue
		}
		rows = append(rows, []string{r.Target, fmt.Sprint(r.Iteration), gatewayName(g),
			fmtCount(r.Requests) + " / " + fmtCount(g.Requests), byClass(g.ByClass), extAuthzCell(g.ExtAuthz),
			answersCell(r), timingCell(g.Authz), timingCell(g.Upstream), timingCell(g.Downstream)})
	}
	return rows
}

func gatewayName(g *results.Gateway) string {
	if g.Component == "" || g.Component == g.Kind {
		return g.Kind
	}
	return g.Component + " (" + g.Kind + ")"
}

func byClass(m map[string]int64) string {
	var parts []string
	for _, c := range []string{"1xx", "2xx", "3xx", "4xx", "5xx"} {
		if n := m[c]; n > 0 {
			parts = append(parts, fmtCount(n)+" × "+c)
		}
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

func extAuthzCell(e *results.ExtAuthzCounts) string {
	if e == nil {
		return "—"
	}
	s := fmtCount(e.OK) + " / " + fmtCount(e.Denied) + " / " + fmtCount(e.Error)
	var extra []string
	if e.Timeouts > 0 {
		extra = append(extra, fmtCount(e.Timeouts)+" timed out")
	}
	if e.FailureModeAllowed > 0 {
		extra = append(extra, fmtCount(e.FailureModeAllowed)+" let through (failure mode allow)")
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// answersCell is the run's own split of its 403s: the gateway's after a
// failed authz call, and the auth service's denials.
func answersCell(r results.Result) string {
	n403 := r.Status["403"]
	var parts []string
	for _, k := range []string{"gateway-authz-error", "gateway-authz-denied", "gateway-other"} {
		if n := r.Answers[k]; n > 0 {
			parts = append(parts, fmtCount(n)+" "+k)
		}
	}
	if n403 == 0 && len(parts) == 0 {
		return "—"
	}
	s := fmtCount(n403) + " × 403"
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// timingCell is a timed path: its mean, and its P50 and P99 buckets.
func timingCell(t *results.GatewayTiming) string {
	if t == nil || t.Count == 0 && t.MeanMs == 0 {
		return "—"
	}
	s := "mean " + fmtSig(t.MeanMs, 3) + " ms"
	if t.P50 != nil {
		s += ", P50 " + bucketText(t.P50)
	}
	if t.P99 != nil {
		s += ", P99 " + bucketText(t.P99)
	}
	if t.P50 == nil && t.Count > 0 {
		s += " (running mean)"
	}
	return s
}

// bucketText is a histogram bucket, (low, high] ms, its bounds as the
// gateway set them.
func bucketText(b *results.Bucket) string {
	if b.Open {
		return "> " + bound(b.LowMs) + " ms"
	}
	return "(" + bound(b.LowMs) + ", " + bound(b.HighMs) + "] ms"
}

func bound(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// gatewayTable is the HTML table of the runs' gateway accounts; false
// when none has one.
func gatewayTable(runs ...*results.Run) (htmlTable, bool) {
	t := htmlTable{ID: "gateway", Title: "The Gateway's Own Account", Head: gatewayHead, Note: gatewayNote}
	for _, run := range runs {
		if run != nil {
			t.Rows = append(t.Rows, gatewayRows(run.Results)...)
		}
	}
	return t, len(t.Rows) > 0
}

// gateway is the summary's "The Gateway's Own Account" section; nothing
// when no iteration has one.
func (s *summaryWriter) gateway(t targetRun) {
	rows := gatewayRows(t.results)
	if len(rows) == 0 {
		return
	}
	s.heading(2, "The Gateway's Own Account")
	s.printf("| %s |\n", strings.Join(gatewayHead, " | "))
	s.printf("|%s\n", strings.Repeat("---|", len(gatewayHead)))
	for _, r := range rows {
		s.printf("| %s |\n", strings.Join(r, " | "))
	}
	s.printf("\n%s\n\n", gatewayNote)
}
