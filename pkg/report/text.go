package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// TextOptions controls Text output.
type TextOptions struct {
	// RunDir is the run directory, printed last so the user can find
	// run.json and summary.md. Default "": not printed.
	RunDir string
}

// Text writes the terminal report of a run: a hey-style block per target ×
// iteration, a per-iteration table for each target run more than once, and
// nothing secret.
func Text(w io.Writer, run *results.Run) error { return WriteText(w, run, TextOptions{}) }

// WriteText is Text with options.
func WriteText(w io.Writer, run *results.Run, opts TextOptions) error {
	if run == nil {
		return errors.New("writing text report: no run")
	}
	var b strings.Builder
	textHeader(&b, run)
	targets := groupTargets(run)
	for _, t := range targets {
		for _, r := range t.results {
			fmt.Fprintf(&b, "\n=== %s · iteration %d/%d ===\n", r.Target, r.Iteration, max(run.Plan.Load.Iterations, len(t.results)))
			textResult(&b, &r)
		}
		if len(t.results) > 1 {
			iterationTable(&b, t)
		}
	}
	if opts.RunDir != "" {
		fmt.Fprintf(&b, "\nResults: %s\n", opts.RunDir)
	}
	if _, err := io.WriteString(w, scrub(b.String(), secretsOf(run))); err != nil {
		return fmt.Errorf("writing text report: %w", err)
	}
	return nil
}

// TextResult writes the hey-style block of one target × iteration, for the
// CLI to print as each iteration ends.
func TextResult(w io.Writer, r *results.Result) error {
	if r == nil {
		return errors.New("writing text result: no result")
	}
	var b strings.Builder
	textResult(&b, r)
	if _, err := io.WriteString(w, scrub(b.String(), nil)); err != nil {
		return fmt.Errorf("writing text result: %w", err)
	}
	return nil
}

// textHeader is one line saying what ran, plus the partial/imported notes.
func textHeader(b *strings.Builder, run *results.Run) {
	l := run.Plan.Load
	load := "closed loop"
	switch {
	case len(l.Stages) > 0:
		load = "open loop on stages " + l.Stages.String()
	case l.Model() == plan.Open:
		load = "open loop at " + fmtRPS(l.Rate)
	}
	if l.Concurrency > 0 {
		load += fmt.Sprintf(", %d workers", l.Concurrency)
	}
	tool := "authbench " + firstNonEmpty(run.AuthbenchVersion, "(version not recorded)")
	fmt.Fprintf(b, "%s: run %s", tool, firstNonEmpty(run.Name, run.Plan.Name, "run"))
	if run.ID != "" {
		fmt.Fprintf(b, " (%s)", run.ID)
	}
	fmt.Fprintf(b, ", %s\n", load)
	if run.Partial {
		b.WriteString("WARNING: partial run: interrupted; only what was measured is shown.\n")
	}
	if im := run.Imported; im != nil {
		fmt.Fprintf(b, "Imported from %s; values it does not report are shown as %q.\n",
			firstNonEmpty(im.Tool, "another tool"), notMeasured)
	}
}

// textResult writes hey's sections in hey's layout: label, tab, value.
func textResult(b *strings.Builder, r *results.Result) {
	l := r.Latency
	has := measured(l)
	secs := func(key string, v float64) string {
		if !has || unavailable(r, key) {
			return notMeasured
		}
		return fmtSecs(v)
	}
	b.WriteString("\nSummary:\n")
	fmt.Fprintf(b, "  Total:\t%s\n", fmtSecs(r.DurationS*1000))
	fmt.Fprintf(b, "  Slowest:\t%s\n", secs("max", l.Max))
	fmt.Fprintf(b, "  Fastest:\t%s\n", secs("min", l.Min))
	fmt.Fprintf(b, "  Average:\t%s\n", secs("mean", l.Mean))
	fmt.Fprintf(b, "  Requests/sec:\t%4.4f\n", r.ThroughputRPS)
	fmt.Fprintf(b, "  Requests:\t%d (%d succeeded, %s)\n", r.Requests, r.Successes, fmtPercent(r.Successes, r.Requests))
	if r.Model == plan.Open {
		openText(b, r)
		stagesText(b, r)
	}
	b.WriteString("\nLatency distribution:\n")
	if !has {
		fmt.Fprintf(b, "  %s\n", notMeasured)
	}
	for _, p := range percentiles(l) {
		if has && !unavailable(r, p.key) {
			fmt.Fprintf(b, "  %s%% in %s\n", p.label, fmtSecs(p.v))
		}
	}
	phasesText(b, r)
	statusText(b, r)
	errorText(b, r)
}

// percentile is one line of the latency distribution.
type percentile struct {
	label, key string
	v          float64
}

func percentiles(l results.Latency) []percentile {
	return []percentile{
		{"50", "p50", l.P50}, {"75", "p75", l.P75}, {"90", "p90", l.P90}, {"95", "p95", l.P95},
		{"99", "p99", l.P99}, {"99.9", "p999", l.P999}, {"99.99", "p9999", l.P9999},
	}
}

// unavailable reports whether an importer marked key as not measured.
func unavailable(r *results.Result, key string) bool {
	for _, u := range r.Unavailable {
		if u == key {
			return true
		}
	}
	return false
}

// openText shows how the schedule was kept and what correcting for
// coordinated omission changed.
func openText(b *strings.Builder, r *results.Result) {
	b.WriteString("\nOpen loop:\n")
	target := notMeasured
	if r.TargetRPS > 0 {
		target = fmt.Sprintf("%4.4f", r.TargetRPS)
	}
	fmt.Fprintf(b, "  Target rate:\t%s\n", target)
	if a := r.AchievedRPS; a != nil {
		fmt.Fprintf(b, "  Achieved rate:\t%4.4f", *a)
		if r.TargetRPS > 0 {
			fmt.Fprintf(b, " (%s of target)", fmtFraction(*a/r.TargetRPS))
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(b, "  Achieved rate:\t%s\n", notMeasured)
	}
	if n := r.LateSends; n != nil {
		fmt.Fprintf(b, "  Late sends:\t%d (%s)\n", *n, fmtPercent(*n, r.Requests))
	} else {
		fmt.Fprintf(b, "  Late sends:\t%s\n", notMeasured)
	}
	if l := r.SendLag; l != nil {
		fmt.Fprintf(b, "  Send lag:\tp50 %s, p99 %s, max %s\n", fmtSecs(l.P50Ms), fmtSecs(l.P99Ms), fmtSecs(l.MaxMs))
	}
	u := r.LatencyUncorrected
	if u == nil || !measured(*u) || !measured(r.Latency) {
		b.WriteString("  Uncorrected latency:\tnot measured\n")
		return
	}
	b.WriteString("  Latency corrected (from intended send) / uncorrected (from actual send):\n")
	fmt.Fprintf(b, "    50%%:\t%s / %s\n", fmtSecs(r.Latency.P50), fmtSecs(u.P50))
	fmt.Fprintf(b, "    99%%:\t%s / %s\n", fmtSecs(r.Latency.P99), fmtSecs(u.P99))
	fmt.Fprintf(b, "    Slowest:\t%s / %s\n", fmtSecs(r.Latency.Max), fmtSecs(u.Max))
}

// phasesText is hey's "Details". DNS, dial and TLS happen only on new
// connections, so their line says on how many requests they were seen.
func phasesText(b *strings.Builder, r *results.Result) {
	b.WriteString("\nDetails (average, fastest, slowest):\n")
	p := r.Phases
	for _, ph := range []struct {
		label, key string
		v          results.Phase
		perConn    bool
	}{
		{"DNS-lookup", "phases.dns", p.DNS, true},
		{"dialup", "phases.connect", p.Connect, true},
		{"TLS handshake", "phases.tls", p.TLS, true},
		{"req write", "phases.write", p.Write, false},
		{"resp wait", "phases.wait", p.Wait, false},
		{"resp read", "phases.read", p.Read, false},
	} {
		v := ph.v
		if unavailable(r, "phases") || unavailable(r, ph.key) || (v.Count == 0 && v.Max == 0) {
			fmt.Fprintf(b, "  %s:\t%s\n", ph.label, notMeasured)
			continue
		}
		fmt.Fprintf(b, "  %s:\t%s, %s, %s", ph.label, fmtSecs(v.Mean), fmtSecs(v.Min), fmtSecs(v.Max))
		if ph.perConn && v.Count > 0 {
			fmt.Fprintf(b, "\t(on %d requests)", v.Count)
		}
		b.WriteString("\n")
	}
}

// statusText is hey's "Status code distribution".
func statusText(b *strings.Builder, r *results.Result) {
	if unavailable(r, "status") {
		fmt.Fprintf(b, "\nStatus code distribution:\n  %s\n", notMeasured)
		return
	}
	if len(r.Status) == 0 {
		return
	}
	b.WriteString("\nStatus code distribution:\n")
	for _, code := range sortedKeys(r.Status) {
		fmt.Fprintf(b, "  [%s]\t%d responses\n", code, r.Status[code])
	}
}

// errorText is hey's "Error distribution", one line per transport class
// with its sample message.
func errorText(b *strings.Builder, r *results.Result) {
	if len(r.Errors) == 0 {
		return
	}
	b.WriteString("\nError distribution:\n")
	for _, class := range sortedKeys(r.Errors) {
		msg := class
		if s := r.ErrorSamples[class]; s != "" {
			msg += ": " + strings.ReplaceAll(s, "\n", " ")
		}
		fmt.Fprintf(b, "  [%d]\t%s\n", r.Errors[class], msg)
	}
}

// iterationTable lines up a target's iterations so drift is visible.
func iterationTable(b *strings.Builder, t targetRun) {
	fmt.Fprintf(b, "\n%s: %d iterations\n", t.name, len(t.results))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  Iteration\tRequests\tAverage\tp50\tp95\tp99\tRequests/sec\tSuccess")
	for _, r := range t.results {
		l := r.Latency
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\t%4.4f\t%s\n", r.Iteration, r.Requests,
			secsOrNA(l, l.Mean), secsOrNA(l, l.P50), secsOrNA(l, l.P95), secsOrNA(l, l.P99),
			r.ThroughputRPS, fmtPercent(r.Successes, r.Requests))
	}
	tw.Flush()
}

func secsOrNA(l results.Latency, v float64) string {
	if !measured(l) {
		return "n/a"
	}
	return fmtSecs(v)
}
