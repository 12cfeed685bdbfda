package capacity

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/authbench/authbench/pkg/plan"
)

// WriteJSON writes the results as one indented JSON document: an array,
// one object per target searched.
func WriteJSON(w io.Writer, rs []*Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rs)
}

// WriteText words a result for the terminal: the capacity and its
// uncertainty, the knee, the bottleneck, caveats, then the steps.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	name := r.Target
	if name == "" {
		name = "target"
	}
	fmt.Fprintf(&b, "%s: %s under %s\n", name, headline(r), SLOText(r.SLO))
	for _, l := range detailLines(r) {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeSteps(w, r.Steps)
}

func headline(r *Result) string {
	switch {
	case r.Capacity == 0 && r.Stop == StopBelowMin:
		return fmt.Sprintf("capacity below %s req/s, the lowest rate tried", num(r.FirstFail))
	case r.Capacity == 0:
		return "no capacity found"
	case r.FirstFail == 0:
		return fmt.Sprintf("capacity at least %s req/s offered, %s req/s served", num(r.Capacity), num(r.Sustained))
	}
	return fmt.Sprintf("capacity %s req/s offered, %s req/s served (the SLO breaks by %s req/s offered, +%.1f%%)",
		num(r.Capacity), num(r.Sustained), num(r.FirstFail), r.Width*100)
}

func detailLines(r *Result) []string {
	var out []string
	if r.Capacity > 0 && r.FirstFail > 0 {
		out = append(out, fmt.Sprintf("between %s req/s (met the SLO %s) and %s req/s (%s); width %.1f%%, aimed for %.0f%%",
			num(r.Capacity), times(r.Spread), num(r.FirstFail), missedText(firstMiss(r)), r.Width*100, r.Precision*100))
	}
	if sp := r.Spread; sp != nil && sp.N > 1 {
		out = append(out, fmt.Sprintf("%d measurements at %s req/s: served %s–%s req/s, p99 %s–%s ms",
			sp.N, num(r.Capacity), num(sp.ThroughputMin), num(sp.ThroughputMax), num(sp.P99Min), num(sp.P99Max)))
	}
	if r.ThroughputMet != nil && !*r.ThroughputMet {
		out = append(out, fmt.Sprintf("✗ below the SLO's throughput minimum of %s req/s", num(r.SLO.Throughput)))
	}
	if k := r.Knee; k != nil {
		out = append(out, fmt.Sprintf("knee at %s req/s: p99 %s ms there, %s ms at %s req/s",
			num(k.Rate), num(k.P99), num(k.NextP99), num(k.NextRate)))
	}
	if bn := r.Bottleneck; bn != nil {
		out = append(out, bottleneckText(bn))
	}
	if h := r.Host; h != nil && h.Contended {
		out = append(out, fmt.Sprintf("⚠ host contention: the sampled components used %s of this host's %d CPUs (%.0f%%) at %s req/s, "+
			"so this capacity is the host's, shared with the load generator, not the target's alone",
			num(h.CPU), h.CPUs, h.Share*100, num(h.Rate)))
	}
	steps := "steps"
	if len(r.Steps) == 1 {
		steps = "step"
	}
	out = append(out, fmt.Sprintf("search: %d %s in %.0f s; %s", len(r.Steps), steps, r.ElapsedS, stopText(r)))
	return out
}

func times(sp *Spread) string {
	if sp == nil {
		return "0 times"
	}
	if sp.N == 1 {
		return "once"
	}
	return fmt.Sprintf("%d of %d times", sp.Passed, sp.N)
}

// firstMiss is what the first failing rate missed, at its first failure.
func firstMiss(r *Result) []Miss {
	for _, st := range r.Steps {
		if st.Offered == r.FirstFail && !st.Pass {
			return st.Missed
		}
	}
	return nil
}

func missedText(ms []Miss) string {
	var parts []string
	for _, m := range ms {
		switch m.Objective {
		case ObjectiveSuccessRate:
			parts = append(parts, fmt.Sprintf("success rate %s%% < %s%%", num(m.Measured*100), num(m.Limit*100)))
		case ObjectiveAchieved:
			parts = append(parts, fmt.Sprintf("achieved %s < %s req/s", num(m.Measured), num(m.Limit)))
		default:
			parts = append(parts, fmt.Sprintf("%s %s > %s ms", m.Objective, num(m.Measured), num(m.Limit)))
		}
	}
	if len(parts) == 0 {
		return "met the SLO"
	}
	return "missed " + strings.Join(parts, ", ")
}

func bottleneckText(bn *Bottleneck) string {
	if !bn.Saturated {
		limit := "no CPU limit"
		if bn.Limit > 0 {
			limit = fmt.Sprintf("%.0f%% of its %s-core limit", bn.CPU/bn.Limit*100, num(bn.Limit))
		}
		return fmt.Sprintf("no component ran into a CPU limit; the busiest at %s req/s was %s: %s cores (%s)",
			num(bn.Rate), bn.Component, num(bn.CPU), limit)
	}
	s := fmt.Sprintf("saturated first: %s at %s req/s", bn.Component, num(bn.Rate))
	if bn.Limit > 0 {
		s += fmt.Sprintf(", %s of its %s-core CPU limit", num(bn.CPU), num(bn.Limit))
	}
	if bn.Throttled > 0 {
		s += fmt.Sprintf(", throttled in %.0f%% of its periods", bn.Throttled*100)
	}
	return s
}

func stopText(r *Result) string {
	switch r.Stop {
	case StopPrecision:
		return fmt.Sprintf("stopped when the interval was narrower than %.0f%%", r.Precision*100)
	case StopMax:
		return "stopped at the maximum rate, which met the SLO: raise --max to search higher"
	case StopBelowMin:
		return "stopped: the minimum rate already missed the SLO; lower --min"
	case StopBudget:
		return "stopped when the time budget was spent: raise --budget for a narrower interval"
	case StopInterrupted:
		return "interrupted"
	}
	return "stopped: " + r.Stop
}

func writeSteps(w io.Writer, steps []Step) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tphase\toffered\tachieved\tp50 ms\tp95 ms\tp99 ms\tsuccess\t verdict")
	for _, st := range steps {
		verdict := "ok"
		if !st.Pass {
			verdict = missedText(st.Missed)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s%%\t %s\n", st.N, st.Phase, num(st.Offered), num(st.Achieved),
			num(st.P50), num(st.P95), num(st.P99), num(st.SuccessRate*100), verdict)
	}
	return tw.Flush()
}

// SLOText writes an SLO in the --slo syntax, e.g. "p99<100ms,success_rate>=99.9%".
func SLOText(s plan.SLO) string {
	var parts []string
	for _, l := range []struct {
		name string
		d    plan.Duration
	}{{"p50", s.P50}, {"p95", s.P95}, {"p99", s.P99}} {
		if l.d > 0 {
			parts = append(parts, l.name+"<"+l.d.String())
		}
	}
	if s.SuccessRate > 0 {
		parts = append(parts, "success_rate>="+strconv.FormatFloat(s.SuccessRate*100, 'f', -1, 64)+"%")
	}
	if s.Throughput > 0 {
		parts = append(parts, "throughput>="+strconv.FormatFloat(s.Throughput, 'f', -1, 64))
	}
	if len(parts) == 0 {
		return "no SLO (keeping up only)"
	}
	return strings.Join(parts, ",")
}

// num formats a figure with three significant digits, whole from 100 up.
func num(x float64) string {
	ax := math.Abs(x)
	switch {
	case ax >= 100:
		return strconv.FormatFloat(math.Round(x), 'f', -1, 64)
	case ax == 0 || math.IsNaN(x) || math.IsInf(x, 0):
		return "0"
	}
	s := strconv.FormatFloat(x, 'f', max(0, 3-int(math.Ceil(math.Log10(ax)))), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
