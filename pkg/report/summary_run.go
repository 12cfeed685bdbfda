package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// severityRank orders findings most serious first.
var severityRank = map[string]int{"critical": 0, "warning": 1, "info": 2}

func severityIcon(sev string) string {
	switch sev {
	case "critical":
		return "❌"
	case "warning":
		return "⚠️"
	}
	return "ℹ️"
}

// findingsFor returns the findings about one target.
func (s *summaryWriter) findingsFor(target string) []results.Finding {
	var out []results.Finding
	for _, f := range s.run.Findings {
		if f.Target == target {
			out = append(out, f)
		}
	}
	return out
}

// untargetedFindings are those no per-target section showed.
func (s *summaryWriter) untargetedFindings() []results.Finding {
	known := map[string]bool{}
	for _, t := range s.targets {
		known[t.name] = true
	}
	var out []results.Finding
	for _, f := range s.run.Findings {
		if !known[f.Target] {
			out = append(out, f)
		}
	}
	return out
}

// findings writes the diagnosis, most serious first.
func (s *summaryWriter) findings(fs []results.Finding) {
	if len(fs) == 0 {
		return
	}
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b results.Finding) int {
		return rank(a.Severity) - rank(b.Severity)
	})
	s.heading(2, "Findings")
	for i, f := range fs {
		title := fmt.Sprintf("%d. %s %s (%s)", i+1, severityIcon(f.Severity), f.Kind, firstNonEmpty(f.Severity, "info"))
		if f.Component != "" {
			title += " — " + f.Component
		}
		s.heading(3, title)
		if f.Target != "" && len(s.targets) > 1 && s.off == 0 {
			s.item("Target", "%s", f.Target)
		}
		s.item("Evidence", "%s", firstNonEmpty(f.Evidence, notMeasured))
		if f.Advice != "" {
			s.item("Advice", "%s", f.Advice)
		}
		s.printf("\n")
	}
}

func rank(sev string) int {
	if r, ok := severityRank[sev]; ok {
		return r
	}
	return len(severityRank)
}

// slo writes the objective checks of one target.
func (s *summaryWriter) slo(t targetRun) {
	var checks []results.SLOCheck
	for _, c := range s.run.SLO {
		if c.Target == t.name || (c.Target == "" && len(s.targets) == 1) {
			checks = append(checks, c)
		}
	}
	if len(checks) == 0 {
		return
	}
	s.heading(2, "SLO Results")
	if s.isCapacity() {
		s.printf("At the capacity found: its passing steps (the search's verdict on every step is under Search Steps).\n\n")
	}
	passed := 0
	s.printf("| Objective | Limit | Measured | Result |\n")
	s.printf("|-----------|-------|----------|--------|\n")
	for _, c := range checks {
		result := "❌ fail"
		if c.Pass {
			result = "✅ pass"
			passed++
		}
		op := "≤"
		if c.Objective == "success_rate" || c.Objective == "throughput" {
			op = "≥"
		}
		s.printf("| %s | %s %s | %s | %s |\n", objectiveName(c.Objective), op, sloValue(c, c.Limit),
			sloValue(c, c.Measured), result)
	}
	s.printf("\n%d of %d objectives met.\n\n", passed, len(checks))
}

func objectiveName(o string) string {
	switch o {
	case "success_rate":
		return "Success rate"
	case "throughput":
		return "Throughput"
	}
	return strings.ToUpper(o)
}

// sloValue prints a limit or measurement in the check's unit.
func sloValue(c results.SLOCheck, v float64) string {
	switch {
	case c.Unit == "ms":
		return fmtLatency(v)
	case c.Unit == "s":
		return fmtLatency(v * 1000)
	case c.Unit == "req/s" || c.Objective == "throughput":
		return fmtRPS(v)
	case c.Unit == "%":
		return fmtFraction(v / 100)
	case c.Objective == "success_rate":
		return fmtFraction(v)
	}
	return strings.TrimSpace(fmtSig(v, 3) + " " + c.Unit)
}

// lab says which real component plays which role in the local lab.
func (s *summaryWriter) lab() {
	l := s.run.Lab
	if l == nil || (len(l.Components) == 0 && len(l.Stacks) == 0 && len(l.Notes) == 0) {
		return
	}
	s.heading(2, "Lab Components")
	if len(l.Stacks) > 0 {
		s.item("Stacks", "%s", codeList(l.Stacks))
	}
	if l.Dir != "" {
		s.item("Lab Directory", "%s", code(l.Dir))
	}
	s.printf("\n")
	if len(l.Components) > 0 {
		s.printf("| Component | Role | Version | URL | Limit |\n")
		s.printf("|-----------|------|---------|-----|-------|\n")
		for _, c := range l.Components {
			s.printf("| %s | %s | %s | %s | %s |\n", cell(c.Name), cell(dash(c.Role)), cell(dash(c.Version)),
				cell(dash(redactURL(c.URL))), cell(dash(limitCell(c))))
		}
		s.printf("\n")
	}
	for _, n := range l.Notes {
		s.printf("- %s\n", n)
	}
	s.printf("\n")
}

func dash(s string) string { return firstNonEmpty(s, "—") }

// limitCell is a component's resource limit and, for a stand-in, the
// client-side rate limit it ran with, and the what-ifs that set it.
func limitCell(c results.LabComponent) string {
	parts := []string{}
	if c.Limit != "" {
		parts = append(parts, c.Limit)
	}
	if st := c.Standin; st != nil {
		api := fmt.Sprintf("API client %s QPS, burst %d (%s); %s", strconv.FormatFloat(st.APIQPS, 'g', -1, 64), st.APIBurst, firstNonEmpty(strings.Join(st.WhatIf, " "), "as the real one"), st.Cache)
		parts = append(parts, api)
	}
	return strings.Join(parts, "; ")
}

// files lists the run directory's content.
func (s *summaryWriter) files() {
	s.heading(2, "Files Generated")
	if len(s.run.Files) == 0 {
		s.printf("None recorded.\n\n")
		return
	}
	for _, f := range s.run.Files {
		s.printf("- %s\n", code(f))
	}
	s.printf("\n")
}

// environment is the fingerprint a comparison uses to tell unlike runs apart.
func (s *summaryWriter) environment() {
	e := s.run.Environment
	s.heading(2, "Environment")
	s.item("Host", "%s", firstNonEmpty(e.Host, notMeasured))
	s.item("OS", "%s", firstNonEmpty(strings.Trim(e.OS+"/"+e.Arch, "/"), notMeasured))
	if e.CPUs > 0 {
		s.item("CPUs", "%d", e.CPUs)
	} else {
		s.item("CPUs", notMeasured)
	}
	s.item("Go Version", "%s", firstNonEmpty(e.GoVersion, notMeasured))
	if len(s.run.CommandLine) > 0 {
		s.item("Command", "%s", code(strings.Join(redactArgs(s.run.CommandLine), " ")))
	}
	s.printf("\n")
	s.heading(3, "Target Fingerprints")
	if len(e.Targets) == 0 {
		s.printf("No fingerprint recorded.\n\n")
		return
	}
	s.printf("| Target | URL | Probe Status | Server | Body SHA-256 |\n")
	s.printf("|--------|-----|--------------|--------|--------------|\n")
	for _, f := range e.Targets {
		status := notMeasured
		switch {
		case f.Error != "":
			status = "error: " + f.Error
		case f.Status > 0:
			status = statusName(fmt.Sprint(f.Status))
		}
		hash := notMeasured
		if f.BodySHA256 != "" {
			hash = code(f.BodySHA256[:min(12, len(f.BodySHA256))] + "…")
		}
		s.printf("| %s | %s | %s | %s | %s |\n", cell(f.Target), cell(code(redactURL(f.URL))), cell(status),
			cell(firstNonEmpty(f.Server, notMeasured)), hash)
	}
	s.printf("\n")
}
