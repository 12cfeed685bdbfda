package demo

import (
	"fmt"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/results"
)

// verdict is what the demo concludes from the steps that ran: the
// stacks' capacity ratio and latency gap below capacity, what the closed
// loop's ratio really was, the limit's cost, and the costliest layer.
func verdict(out *Outcome) []string {
	var v []string
	if p := out.Properly; p != nil && p.Capacity != nil && len(p.Capacity.Searches) >= 2 {
		v = append(v, capacityVerdict(p)...)
	}
	if c := out.Closed; c != nil && c.Comparison != nil && len(c.Comparison.Sides) == 2 {
		s, b := c.Comparison.Sides[1-c.Comparison.Baseline], c.Comparison.BaselineSide()
		what := "a capacity ratio: the workers queued"
		if len(c.Saturation) == 0 {
			what = "measured at saturation by a closed loop"
		}
		v = append(v, fmt.Sprintf("The closed loop's %s P50 ratio (%s against %s) was %s, not the latency users see below capacity.",
			times(s.Latency.P50, b.Latency.P50), s.Label, b.Label, what))
	}
	if l := out.Limit; l != nil && l.Capacity != nil && len(l.Capacity.Searches) > 0 {
		line := fmt.Sprintf("A %s CPU limit on %s cuts %s's capacity to %s", l.Limit.String(), l.Limit.Component, l.Target,
			capacityText(l.Capacity.Searches[0]))
		if f := targetOf(l.Lifted, l.Target); f != nil {
			line += fmt.Sprintf("; lifted, P99 at %s req/s is %s", rps(l.Rate), ms(f.P99))
			if g := targetOf(l.Limited, l.Target); g != nil {
				line += fmt.Sprintf(" (limited: %s)", ms(g.P99))
			}
		}
		v = append(v, line+".")
	}
	for _, lo := range out.Ladders {
		if name, add := costliest(lo.Ladder); name != "" {
			v = append(v, fmt.Sprintf("In %s, %s adds the most of the layers in front of the backend: %+.2g ms at P50.",
				lo.Ladder.Target, name, add))
		}
	}
	if len(v) == 0 {
		v = append(v, "No verdict: the steps that decide it did not complete.")
	}
	return v
}

// capacityVerdict compares every stack with the first on capacity and
// on latency at the common rate.
func capacityVerdict(p *ProperStep) []string {
	var v []string
	rs := p.Capacity.Searches
	base := rs[0]
	for _, s := range rs[1:] {
		line := fmt.Sprintf("Verdict: capacity under %s, %s %s against %s %s", capacity.SLOText(s.SLO), s.Target,
			capacityText(s), base.Target, capacityText(base))
		if s.Capacity > 0 && base.Capacity > 0 {
			line += fmt.Sprintf(" (%s)", times(s.Capacity, base.Capacity))
		}
		if c := p.Comparison; c != nil {
			if i := sideIndex(c, s.Target); i >= 0 {
				where := ""
				if belowAll(rs, p.Rate) {
					where = ", below every capacity"
				}
				line += fmt.Sprintf("; at %s req/s%s, it adds %s at P50", rps(p.Rate), where, significance(c, "p50", i))
			}
		}
		v = append(v, line+".")
	}
	return v
}

func sideIndex(c *analyze.Comparison, target string) int {
	for i, s := range c.Sides {
		if s.Target == target || s.Label == target {
			return i
		}
	}
	return -1
}

// costliest is the layer in front of the backend with the highest added
// P50.
func costliest(l *results.Ladder) (string, float64) {
	name, most := "", 0.0
	for i, layer := range l.Layers {
		if i == len(l.Layers)-1 {
			break // the backend itself
		}
		if layer.AddedMs.P50 > most {
			name, most = layer.Name, layer.AddedMs.P50
		}
	}
	return name, most
}
