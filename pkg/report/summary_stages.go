package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// stageTolerance is how far a stage's achieved rate may fall from its
// target before its row is marked: the precision the engine is held to.
const stageTolerance = 0.05

// stages words a staged open loop's per-stage results: the rate kept,
// latency, errors, and each component's CPU in each stage, because where
// caches, throttling and queues set in shows between stages.
func (s *summaryWriter) stages(t targetRun) {
	var rs []results.Result
	for _, r := range t.results {
		if len(r.Stages) > 0 {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return
	}
	s.heading(2, "Stages")
	s.printf("Each request belongs to the stage of its intended send time; latency is measured from it. ")
	s.printf("A stage's target is its mean rate; ⚠️ marks an achieved rate more than %.0f%% off it, or requests due but never sent.\n\n", stageTolerance*100)
	many := len(rs) > 1
	if many {
		s.printf("| Iteration ")
	}
	s.printf("| Stage | Schedule | Target | Achieved | Requests | P50 | P99 | P99 uncorrected | Errors | |\n")
	if many {
		s.printf("|-----------")
	}
	s.printf("|-------|----------|--------|----------|----------|-----|-----|-----------------|--------|---|\n")
	for _, r := range rs {
		for _, st := range r.Stages {
			if many {
				s.printf("| %d ", r.Iteration)
			}
			s.printf("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", st.Stage, stageSchedule(st), fmtRPS(st.TargetRPS),
				fmtRPS(st.AchievedRPS), fmtCount(st.Requests), fmtLatency(st.Latency.P50), fmtLatency(st.Latency.P99),
				fmtLatency(st.LatencyUncorrected.P99), stageErrors(st), stageMark(st))
		}
	}
	s.printf("\n")
	s.stageComponents(rs)
}

// stageSchedule says what the stage asked for: "hold 100 req/s for 30s"
// or "ramp 100 → 500 req/s over 1m0s".
func stageSchedule(st results.Stage) string {
	d := plan.Duration(st.End.Sub(st.Start))
	if st.FromRPS != st.ToRPS {
		return fmt.Sprintf("ramp %s → %s req/s over %s", plainRate(st.FromRPS), plainRate(st.ToRPS), d)
	}
	return fmt.Sprintf("hold %s req/s for %s", plainRate(st.FromRPS), d)
}

// stageErrors is the stage's failures: HTTP >= 400 and transport errors
// by class, with their share.
func stageErrors(st results.Stage) string {
	var parts []string
	for _, code := range sortedKeys(st.Status) {
		if n, err := strconv.Atoi(code); err == nil && n >= 400 {
			parts = append(parts, fmt.Sprintf("%s × %s", code, fmtCount(st.Status[code])))
		}
	}
	for _, class := range sortedKeys(st.Errors) {
		parts = append(parts, fmt.Sprintf("%s × %s", class, fmtCount(st.Errors[class])))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ") + " (" + fmtPercent(st.Requests-st.Successes, st.Requests) + ")"
}

// stageMark flags a stage that did not get the load it asked for.
func stageMark(st results.Stage) string {
	off := st.TargetRPS > 0 && (st.AchievedRPS < st.TargetRPS*(1-stageTolerance) || st.AchievedRPS > st.TargetRPS*(1+stageTolerance))
	switch {
	case st.Unsent > 0:
		return fmt.Sprintf("⚠️ %s unsent", fmtCount(st.Unsent))
	case off:
		return "⚠️"
	}
	return "✅"
}

// stageComponents is each sampled component's CPU by stage: mean and
// peak, and the throttled share where a limit bit.
func (s *summaryWriter) stageComponents(rs []results.Result) {
	names, seen := []string{}, map[string]bool{}
	for _, r := range rs {
		for _, st := range r.Stages {
			for _, c := range st.Components {
				if !seen[c.Name] {
					seen[c.Name] = true
					names = append(names, c.Name)
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	s.printf("Components by stage: CPU over each stage's window, and the share of CPU periods throttled when a limit applies.\n\n")
	s.printf("| Component | Iteration | Stage | CPU mean | CPU peak | Throttled | CPU-seconds per 1k requests |\n")
	s.printf("|-----------|-----------|-------|----------|----------|-----------|-----------------------------|\n")
	for _, name := range names {
		for _, r := range rs {
			for _, st := range r.Stages {
				for _, c := range st.Components {
					if c.Name != name {
						continue
					}
					s.printf("| %s | %d | %d | %s | %s | %s | %s |\n", cell(name), r.Iteration, st.Stage, fmtCores(c.CPUMean),
						fmtCores(c.CPUPeak), throttledCell(c), fmtSig(c.CPUSecondsPer1k, 3))
				}
			}
		}
	}
	s.printf("\n")
}

func throttledCell(c results.ComponentUsage) string {
	if c.CPULimit <= 0 {
		return "no limit"
	}
	return fmtFraction(c.ThrottledRatio)
}

// plainRate is a rate as the user wrote it in the stage: "100", "2.5".
func plainRate(r float64) string { return strconv.FormatFloat(r, 'g', -1, 64) }

// stagesText is the terminal's per-stage lines, in hey's layout.
func stagesText(b *strings.Builder, r *results.Result) {
	if len(r.Stages) == 0 {
		return
	}
	b.WriteString("\nStages (target / achieved rate, P50 / P99 corrected, errors):\n")
	for _, st := range r.Stages {
		fmt.Fprintf(b, "  %d %s:\t%4.4f / %4.4f req/s, %s / %s, %s\n", st.Stage, st.Spec, st.TargetRPS, st.AchievedRPS,
			fmtSecs(st.Latency.P50), fmtSecs(st.Latency.P99), stageErrors(st))
	}
}
