package report

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Summary writes summary.md for run, in the structure of the benchmark
// summaries performance teams write by hand: configuration, architecture,
// per-iteration latency, key metrics, stability, errors, resources,
// findings, files and environment. A run with several targets gets one set
// of sections per target. an is analyze.Summarize(run): the report words
// what analysis found, it does not analyse. Nothing secret is written: headers appear only
// redacted and any token the in-memory run still holds is scrubbed.
func Summary(w io.Writer, run *results.Run, an *analyze.RunSummary) error {
	if run == nil {
		return errors.New("writing summary: no run")
	}
	s := &summaryWriter{run: run, an: an, targets: groupTargets(run)}
	s.document()
	out := blankLines.ReplaceAllString(s.b.String(), "\n\n")
	out = strings.TrimLeft(out, "\n")
	if _, err := io.WriteString(w, scrub(out, secretsOf(run))); err != nil {
		return fmt.Errorf("writing summary: %w", err)
	}
	return nil
}

// blankLines collapses the blank lines that optional sections leave behind.
var blankLines = regexp.MustCompile(`\n{3,}`)

// summaryWriter accumulates the Markdown of one summary.
type summaryWriter struct {
	b       strings.Builder
	run     *results.Run
	an      *analyze.RunSummary // what analyze.Summarize found
	targets []targetRun
	// off shifts heading levels down by one inside a per-target section.
	off int
}

// targetRun is one target with its results in execution order.
type targetRun struct {
	name    string
	spec    *plan.Target // nil when results name a target the plan lacks
	results []results.Result
}

// groupTargets orders targets as the plan does, then appends any target
// that only the results name (imported runs may have a sparse plan).
func groupTargets(run *results.Run) []targetRun {
	var out []targetRun
	index := map[string]int{}
	for i := range run.Plan.Targets {
		t := &run.Plan.Targets[i]
		if _, dup := index[t.Name]; dup {
			continue
		}
		index[t.Name] = len(out)
		out = append(out, targetRun{name: t.Name, spec: t})
	}
	for _, r := range run.Results {
		i, ok := index[r.Target]
		if !ok {
			i = len(out)
			index[r.Target] = i
			out = append(out, targetRun{name: r.Target})
		}
		out[i].results = append(out[i].results, r)
	}
	return out
}

func (s *summaryWriter) printf(format string, a ...any) { fmt.Fprintf(&s.b, format, a...) }

// heading writes a Markdown heading at level (2 = section), shifted by off.
func (s *summaryWriter) heading(level int, text string) {
	s.printf("\n%s %s\n\n", strings.Repeat("#", level+s.off), text)
}

// item writes one "- **Label:** value" line.
func (s *summaryWriter) item(label, format string, a ...any) {
	s.printf("- **%s:** %s\n", label, fmt.Sprintf(format, a...))
}

// document writes the whole summary.
func (s *summaryWriter) document() {
	s.header()
	s.heading(2, "Test Configuration")
	if len(s.targets) == 1 {
		// The migration reports' order: where, how much, with what, then auth.
		s.targetURL(s.targets[0])
		s.loadConfig()
		s.targetDetails(s.targets[0])
		s.targetSections(s.targets[0])
	} else {
		s.loadConfig()
		s.targetList()
		for _, t := range s.targets {
			s.heading(2, "Target: "+t.name)
			s.off = 1
			s.heading(2, "Target Configuration")
			s.targetURL(t)
			s.targetDetails(t)
			s.targetSections(t)
			s.off = 0
		}
		s.findings(s.untargetedFindings())
	}
	if s.run.Ladder != nil {
		_ = LatencyBreakdown(&s.b, s.run.Ladder)
	}
	s.replicaCurve()
	s.faults()
	s.lab()
	s.files()
	s.environment()
}

// targetSections are the sections every target gets.
func (s *summaryWriter) targetSections(t targetRun) {
	s.architecture(t)
	s.latency(t)
	s.stages(t)
	s.errorsSection(t)
	s.slo(t)
	s.resources(t)
	s.apiserver(t)
	s.gateway(t)
	s.generatorPods(t)
	s.recommendations(t)
	if len(s.targets) == 1 {
		s.findings(s.run.Findings)
	} else {
		s.findings(s.findingsFor(t.name))
	}
}

// header writes the title, date, identity and the partial/imported banners.
func (s *summaryWriter) header() {
	r := s.run
	name := firstNonEmpty(r.Name, r.Plan.Name, "authbench")
	s.printf("# %s Benchmark Summary\n\n", name)
	if r.Start.IsZero() {
		s.printf("**Date:** %s\n", notMeasured)
	} else {
		s.printf("**Date:** %s\n", r.Start.UTC().Format("January 2, 2006 15:04:05 MST"))
	}
	if r.ID != "" {
		s.printf("**Run:** `%s` (id `%s`)\n", name, r.ID)
	} else {
		s.printf("**Run:** `%s`\n", name)
	}
	if !r.Start.IsZero() && r.End.After(r.Start) {
		s.printf("**Duration:** %s (%s – %s UTC)\n", r.End.Sub(r.Start).Round(time.Millisecond),
			r.Start.UTC().Format("15:04:05"), r.End.UTC().Format("15:04:05"))
	}
	if r.Plan.Source != "" {
		s.printf("**Scenario:** `%s`\n", r.Plan.Source)
	}
	if r.Environment.Host != "" {
		s.printf("**Environment:** %s\n", hostLine(r.Environment))
	}
	s.printf("\n")
	if r.Partial {
		s.printf("> ⚠️ **Partial run:** the run was interrupted; %d of %d planned target × iteration results completed. "+
			"Only what was measured is reported.\n\n", len(r.Results), s.plannedResults())
	}
	if r.Imported != nil {
		s.printf("> ℹ️ **Imported from %s**%s. %s does not report everything authbench measures; "+
			"missing values are shown as \"%s\".\n\n",
			firstNonEmpty(r.Imported.Tool, "another tool"), importedFiles(r.Imported),
			firstNonEmpty(r.Imported.Tool, "That tool"), notMeasured)
	}
}

// plannedResults is targets × iterations as planned, never less than what ran.
func (s *summaryWriter) plannedResults() int {
	n := len(s.run.Plan.Targets) * s.run.Plan.Load.Iterations
	return max(n, len(s.run.Results))
}

func importedFiles(im *results.Import) string {
	if len(im.Files) == 0 {
		return ""
	}
	return ": converted from " + codeList(im.Files)
}

func hostLine(e results.Environment) string {
	parts := []string{e.Host}
	if e.OS != "" {
		parts = append(parts, strings.Trim(e.OS+"/"+e.Arch, "/"))
	}
	if e.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", e.CPUs))
	}
	return strings.Join(parts, ", ")
}

// codeList renders names as "`a`, `b`".
func codeList(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = code(x)
	}
	return strings.Join(out, ", ")
}

// code wraps s in a code span that survives backticks inside s.
func code(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
