package report

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// errorRow is one kind of failure summed over a target's iterations.
type errorRow struct {
	kind       string // "HTTP 4xx", "HTTP 5xx", "transport"
	class      string // "403 Forbidden", "timeout"
	count      int64
	iterations []int
	sample     string
}

// errorRows sums HTTP errors (status ≥ 400) by code and transport errors
// by class, most frequent first.
func errorRows(rs []results.Result) []errorRow {
	byKey := map[string]*errorRow{}
	var order []string
	bump := func(key, kind, class string, n int64, it int, sample string) {
		if n <= 0 {
			return
		}
		e, ok := byKey[key]
		if !ok {
			e = &errorRow{kind: kind, class: class}
			byKey[key] = e
			order = append(order, key)
		}
		e.count += n
		if !slices.Contains(e.iterations, it) {
			e.iterations = append(e.iterations, it)
		}
		if e.sample == "" {
			e.sample = sample
		}
	}
	for _, r := range rs {
		for _, code := range sortedKeys(r.Status) {
			n, err := strconv.Atoi(code)
			if err == nil && n < 400 {
				continue
			}
			bump("http "+code, httpKind(n), statusName(code), r.Status[code], r.Iteration, "")
		}
		for _, class := range sortedKeys(r.Errors) {
			bump("transport "+class, "transport", class, r.Errors[class], r.Iteration, r.ErrorSamples[class])
		}
		for _, class := range sortedKeys(r.Answers) {
			bump("gateway "+class, gatewayKind, class, r.Answers[class], r.Iteration, answerMeaning[class])
		}
	}
	out := make([]errorRow, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	slices.SortStableFunc(out, func(a, b errorRow) int {
		return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.kind+a.class, b.kind+b.class))
	})
	return out
}

// gatewayKind is the kind of the rows that split HTTP rows by who made
// the response: the lab's gateway marks its own.
const gatewayKind = "of which the gateway's"

// answerMeaning says what each of the gateway's classes means.
var answerMeaning = map[string]string{
	"gateway-authz-error":  "ext_authz call failed or timed out: not a denial",
	"gateway-authz-denied": "the auth service denied",
	"gateway-other":        "another response Envoy made itself",
}

// httpKind classifies a status; codes that do not parse are "HTTP other".
func httpKind(code int) string {
	if code >= 400 && code < 600 {
		return fmt.Sprintf("HTTP %dxx", code/100)
	}
	return "HTTP other"
}

// statusName is "403 Forbidden", or the bare code when it is not standard.
func statusName(code string) string {
	n, err := strconv.Atoi(code)
	if err != nil {
		return code
	}
	if t := http.StatusText(n); t != "" {
		return code + " " + t
	}
	return code
}

// sortedKeys returns a map's keys in numeric-then-lexical order, so that
// output is deterministic and status codes read 200, 403, 503.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, errA := strconv.Atoi(a)
		y, errB := strconv.Atoi(b)
		if errA == nil && errB == nil {
			return x - y
		}
		return strings.Compare(a, b)
	})
	return keys
}

// errorsSection lists failures by HTTP status and by transport class.
func (s *summaryWriter) errorsSection(t targetRun) {
	s.heading(2, "Errors")
	var total int64
	status := map[string]int64{}
	for _, r := range t.results {
		total += r.Requests
		for code, n := range r.Status {
			status[code] += n
		}
	}
	if len(status) > 0 {
		parts := make([]string, 0, len(status))
		for _, code := range sortedKeys(status) {
			parts = append(parts, fmt.Sprintf("`%s` × %s", code, fmtCount(status[code])))
		}
		s.item("Status Codes", "%s", strings.Join(parts, ", "))
		s.printf("\n")
	}
	for _, r := range t.results {
		if unavailable(&r, "status") {
			s.printf("Iteration %d: per-status-code counts %s; only the success count is known.\n\n", r.Iteration, notMeasured)
		}
	}
	rows := errorRows(t.results)
	if len(rows) == 0 {
		if total == 0 {
			s.printf("No errors recorded, and no request completed.\n\n")
		} else {
			s.printf("No errors: all %s requests got an HTTP status below 400.\n\n", fmtCount(total))
		}
		return
	}
	s.printf("| Kind | Code / Class | Count | Share of Requests | Iterations | Sample |\n")
	s.printf("|------|--------------|-------|-------------------|------------|--------|\n")
	for _, e := range rows {
		sample := "—"
		if e.sample != "" {
			sample = cell(code(e.sample))
		}
		its := make([]string, len(e.iterations))
		for i, it := range e.iterations {
			its[i] = strconv.Itoa(it)
		}
		s.printf("| %s | %s | %s | %s | %s | %s |\n", e.kind, cell(e.class), fmtCount(e.count),
			fmtPercent(e.count, total), strings.Join(its, ", "), sample)
	}
	s.printf("\n")
}
