package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
)

// componentRuns is one component's usage in each iteration of a target.
type componentRuns struct {
	name, role, source string
	iterations         []int
	usage              []results.ComponentUsage
}

// groupComponents collects each component's usage across iterations, in
// order of first appearance.
func groupComponents(rs []results.Result) []*componentRuns {
	var out []*componentRuns
	byName := map[string]*componentRuns{}
	for _, r := range rs {
		for _, u := range r.Components {
			c, ok := byName[u.Name]
			if !ok {
				c = &componentRuns{name: u.Name, role: u.Role, source: u.Source}
				byName[u.Name] = c
				out = append(out, c)
			}
			c.iterations = append(c.iterations, r.Iteration)
			c.usage = append(c.usage, u)
		}
	}
	return out
}

// pick extracts one field of every iteration's usage.
func (c *componentRuns) pick(f func(results.ComponentUsage) float64) analyze.Variation {
	xs := make([]float64, len(c.usage))
	for i, u := range c.usage {
		xs[i] = f(u)
	}
	return describe(xs)
}

// resources writes the migration reports' per-component tables: at start,
// during load (the range of per-iteration means) and peak, then limit,
// throttling and CPU per request — the figure that compares across runs of
// different throughput, unlike absolute cores.
func (s *summaryWriter) resources(t targetRun) {
	comps := groupComponents(t.results)
	host := hostBusyLine(t.results)
	if len(comps) == 0 && host == "" {
		return
	}
	s.heading(2, "Resource Utilization")
	if host != "" {
		s.printf("%s\n\n", host)
	}
	if len(comps) > 1 {
		s.resourceOverview(comps)
	}
	for _, c := range comps {
		title := c.name
		if c.role != "" {
			title += " (" + c.role + ")"
		}
		s.heading(3, title)
		s.componentTable(c)
		s.componentLines(c)
	}
}

// resourceOverview is one line per component, for side-by-side reading.
func (s *summaryWriter) resourceOverview(comps []*componentRuns) {
	s.printf("| Component | Role | CPU Mean | CPU Peak | CPU Limit | Throttled (max) | CPU-s per 1k Requests | Memory Peak |\n")
	s.printf("|-----------|------|----------|----------|-----------|-----------------|-----------------------|-------------|\n")
	for _, c := range comps {
		s.printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(c.name), cell(firstNonEmpty(c.role, "—")),
			fmtCores(c.pick(cpuMean).Mean), fmtCores(c.pick(cpuPeak).Max), limitOf(c),
			fmtFraction(c.pick(throttled).Max), fmtSig(c.pick(cpuPer1k).Mean, 3), fmtMB(c.pick(memPeak).Max))
	}
	s.printf("\nCPU mean and CPU-s per 1k requests are means over iterations; peaks and throttling are the highest iteration's.\n\n")
}

func cpuMean(u results.ComponentUsage) float64   { return u.CPUMean }
func cpuPeak(u results.ComponentUsage) float64   { return u.CPUPeak }
func memPeak(u results.ComponentUsage) float64   { return u.MemPeak }
func memMean(u results.ComponentUsage) float64   { return u.MemMean }
func throttled(u results.ComponentUsage) float64 { return u.ThrottledRatio }
func cpuPer1k(u results.ComponentUsage) float64  { return u.CPUSecondsPer1k }
func cpuLimit(u results.ComponentUsage) float64  { return u.CPULimit }
func memLimit(u results.ComponentUsage) float64  { return u.MemLimit }

// limitOf prints the CPU limit, or its range if it changed between iterations.
func limitOf(c *componentRuns) string {
	st := c.pick(cpuLimit)
	if st.Max == 0 {
		return "none"
	}
	return fmtRange(st.Min, st.Max, fmtCores)
}

// componentTable is the migration reports' At Start | During Load | Peak table.
func (s *summaryWriter) componentTable(c *componentRuns) {
	first := c.usage[0]
	during := "per-iteration mean"
	if len(c.usage) > 1 {
		during = "range of per-iteration means"
	}
	cpuNote, memNote := "", ""
	if l := c.pick(cpuLimit); l.Max > 0 {
		cpuNote = fmt.Sprintf("peak is %s of the %s limit", fmtFraction(c.pick(cpuPeak).Max/l.Max), fmtCores(l.Max))
	}
	if l := c.pick(memLimit); l.Max > 0 {
		memNote = fmt.Sprintf("peak is %s of the %s limit", fmtFraction(c.pick(memPeak).Max/l.Max), fmtMB(l.Max))
	}
	mean, mm := c.pick(cpuMean), c.pick(memMean)
	s.printf("| Metric | At Start | During Load (%s) | Peak | Notes |\n", during)
	s.printf("|--------|----------|------------------|------|-------|\n")
	s.printf("| CPU | %s | %s | %s | %s |\n", fmtCores(first.CPUIdle), fmtRange(mean.Min, mean.Max, fmtCores),
		fmtCores(c.pick(cpuPeak).Max), cpuNote)
	s.printf("| Memory | %s | %s | %s | %s |\n\n", fmtMB(first.MemStart), fmtRange(mm.Min, mm.Max, fmtMB),
		fmtMB(c.pick(memPeak).Max), memNote)
}

// componentLines adds limit, throttling and per-request CPU.
func (s *summaryWriter) componentLines(c *componentRuns) {
	s.item("CPU Limit", "%s", limitOf(c))
	th := c.pick(throttled)
	if th.Max == 0 && c.pick(cpuLimit).Max == 0 {
		s.item("CPU Throttled", "no (no CPU limit)")
	} else {
		s.item("CPU Throttled", "%s", throttleLine(c, th))
	}
	per1k := c.pick(cpuPer1k)
	cpu := fmt.Sprintf("%s CPU-seconds", fmtSig(per1k.Mean, 3))
	if per1k.N > 1 && fmtSig(per1k.Min, 3) != fmtSig(per1k.Max, 3) {
		cpu += fmt.Sprintf(" (mean of iterations; %s–%s)", fmtSig(per1k.Min, 3), fmtSig(per1k.Max, 3))
	}
	s.item("CPU per 1k Requests", "%s", cpu)
	if rpc := c.pick(func(u results.ComponentUsage) float64 { return u.RPSPerCore }); rpc.Max > 0 {
		s.item("Requests per Core-Second", "%s", fmtCount(int64(math.Round(rpc.Mean))))
	}
	s.item("Sampled", "%s, iterations %s", firstNonEmpty(c.source, "source not recorded"), joinInts(c.iterations))
	s.printf("\n")
}

// throttleLine reports CFS throttling: the worst iteration, because
// averages hide it, and the totals behind it.
func throttleLine(c *componentRuns, th analyze.Variation) string {
	var secs float64
	var periods, tp int64
	for _, u := range c.usage {
		secs += u.ThrottledSeconds
		periods += u.Periods
		tp += u.ThrottledPeriods
	}
	line := fmt.Sprintf("%s of CFS periods in the worst iteration", fmtFraction(th.Max))
	if len(c.usage) > 1 {
		line += fmt.Sprintf(" (mean %s)", fmtFraction(th.Mean))
	}
	line += fmt.Sprintf(", %s s throttled in total", fmtSig(secs, 3))
	if periods > 0 {
		line += fmt.Sprintf(" (%s of %s periods)", fmtCount(tp), fmtCount(periods))
	}
	return line
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// hostBusyLine says how busy the whole host was over the iterations, and how
// much of that was authbench: the rest is the lab, the target and the
// neighbours, which the component tables may not cover. "" when the host
// was not read.
func hostBusyLine(rs []results.Result) string {
	var busy, self, rest []float64
	cpus := 0
	for _, r := range rs {
		if h := r.Host; h != nil && h.CPUs > 0 {
			cpus = h.CPUs
			busy = append(busy, h.Share())
			self = append(self, h.SelfCores)
			rest = append(rest, math.Max(0, h.BusyCores-h.SelfCores))
		}
	}
	if cpus == 0 {
		return ""
	}
	pct := func(f float64) string { return fmt.Sprintf("%.0f", 100*f) }
	cores := func(f float64) string { return strings.TrimSuffix(fmtCores(f), " cores") }
	return fmt.Sprintf("**Host:** %d CPUs, %s%% busy (authbench %s cores; everything else on the host %s cores), from /proc/stat.",
		cpus, span(describe(busy), pct), span(describe(self), cores), span(describe(rest), cores))
}

// span prints a variation as its one value or its range.
func span(v analyze.Variation, f func(float64) string) string {
	if v.N < 2 || f(v.Min) == f(v.Max) {
		return f(v.Mean)
	}
	return f(v.Min) + "–" + f(v.Max)
}
