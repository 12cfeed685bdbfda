package demo

import (
	"context"
	"errors"
	"fmt"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// closedLoop is step 1: the migration reports' method, every stack in one run
// (their iterations interleaved), a closed loop of Concurrency workers.
func (d *demo) closedLoop(ctx context.Context) ([]string, error) {
	o := d.o
	l := plan.Load{Requests: o.Requests, Concurrency: o.Concurrency, Iterations: o.Iterations,
		WarmupRequests: max(o.Warmup, 0)}
	r, err := d.run(ctx, d.subPlan("closed-loop", d.base.Targets, l))
	if r == nil {
		return nil, err
	}
	st := &ClosedStep{Run: r, Saturation: findingsOf(r.Run, analyze.KindSaturation, "")}
	d.out.Closed = st
	c, cerr := d.compare(r)
	st.Comparison = c
	if err = errors.Join(err, cerr); c == nil {
		return nil, err
	}
	head := fmt.Sprintf("The migration reports' comparison, closed loop (%d workers, %d × %d requests): %s.",
		o.Concurrency, o.Iterations, o.Requests, latencyAndThroughput(c))
	return []string{head, saturationLine(c, st.Saturation)}, err
}

// latencyAndThroughput says each other side's P50 and throughput against
// the baseline's, with the ratios.
func latencyAndThroughput(c *analyze.Comparison) string {
	b := c.BaselineSide()
	var out string
	for i, s := range c.Sides {
		if i == c.Baseline {
			continue
		}
		if out != "" {
			out += "; "
		}
		out += fmt.Sprintf("%s P50 %s vs %s %s (%s), throughput %s vs %s req/s (%s)", s.Label,
			ms(s.Latency.P50), b.Label, ms(b.Latency.P50), times(s.Latency.P50, b.Latency.P50),
			rps(s.Throughput.Mean), rps(b.Throughput.Mean), times(s.Throughput.Mean, b.Throughput.Mean))
	}
	return out
}

// saturationLine explains the closed loop's ratio with the saturation
// findings: where Little's law holds, latency is workers / throughput.
func saturationLine(c *analyze.Comparison, sat []results.Finding) string {
	if len(sat) == 0 {
		return "No saturation finding: Little's law did not hold, so the latencies are not just queueing."
	}
	var names []string
	for _, f := range sat {
		names = append(names, f.Target)
	}
	line := fmt.Sprintf("Finding %s on %s: mean latency = workers / throughput (Little's law), so the latency "+
		"measured is queueing at each stack's capacity", analyze.KindSaturation, joinAnd(names))
	if len(sat) == len(c.Sides) && len(c.Sides) == 2 {
		s, b := c.Sides[1-c.Baseline], c.BaselineSide()
		line += fmt.Sprintf(": the %s latency ratio is the inverse of the %s throughput ratio, a capacity ratio",
			times(s.Latency.Mean, b.Latency.Mean), times(s.Throughput.Mean, b.Throughput.Mean))
	}
	return line + "."
}

// findingsOf are run's findings of kind (about component, when given).
func findingsOf(run *results.Run, kind, component string) []results.Finding {
	var out []results.Finding
	for _, f := range run.Findings {
		if f.Kind == kind && (component == "" || f.Component == component) {
			out = append(out, f)
		}
	}
	return out
}
