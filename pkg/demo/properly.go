package demo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/capacity"
)

// properly is step 2: each stack's capacity under the SLO, then every
// stack at one open-loop rate below the lowest capacity, interleaved.
func (d *demo) properly(ctx context.Context) ([]string, error) {
	p := d.subPlan("capacity", d.base.Targets, d.openLoad(0))
	co, err := d.capacity(ctx, p, d.o.MinRate, d.o.CapacityBudget)
	if co == nil {
		return nil, err
	}
	st := &ProperStep{Capacity: co}
	d.out.Properly = st
	lines := []string{capacityLine(co.Searches, capacity.SLOText(*d.o.SLO))}
	if err != nil {
		return lines, err
	}
	note := ""
	st.Rate, note = commonRate(co.Searches, d.o)
	if note != "" {
		lines[0] += " " + note
	}
	r, err := d.run(ctx, d.subPlan("open-loop", d.base.Targets, d.openLoad(st.Rate)))
	if r == nil {
		return lines, err
	}
	st.Open = r
	c, cerr := d.compare(r)
	st.Comparison = c
	if c != nil {
		lines = append(lines, openLine(c, st.Rate, belowAll(co.Searches, st.Rate)))
	}
	return lines, errors.Join(err, cerr)
}

// capacityLine gives each stack's capacity under the SLO, with its
// uncertainty, and the ratio to the first stack's.
func capacityLine(rs []*capacity.Result, slo string) string {
	var parts []string
	for i, r := range rs {
		s := r.Target + " " + capacityText(r)
		if i > 0 && rs[0].Capacity > 0 && r.Capacity > 0 {
			s += fmt.Sprintf(" (%s)", times(r.Capacity, rs[0].Capacity))
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("Asked properly: capacity under %s: %s.", slo, strings.Join(parts, ", "))
}

// capacityText is "850 req/s [850, 890)" or why there is none.
func capacityText(r *capacity.Result) string {
	switch {
	case r.Capacity <= 0 && len(r.Steps) > 0:
		return fmt.Sprintf("below %s req/s", rps(r.Steps[0].Offered))
	case r.Capacity <= 0:
		return "not measured"
	case r.FirstFail <= 0:
		return fmt.Sprintf("at least %s req/s (no rate tried failed)", rps(r.Capacity))
	}
	return fmt.Sprintf("%s req/s [%s, %s)", rps(r.Capacity), rps(r.Capacity), rps(r.FirstFail))
}

// commonRate is the open-loop rate every stack is compared at: the
// option's, else RateFraction of the lowest capacity found. A stack that
// met the SLO at no rate tried (on a busy host, one stall can do that)
// has no capacity to stay below: the lowest capacity of the others is
// used, or the first rate tried, and the note says so.
func commonRate(rs []*capacity.Result, o Options) (float64, string) {
	if o.Rate > 0 {
		return o.Rate, ""
	}
	low, none := 0.0, []string{}
	for _, r := range rs {
		switch {
		case r.Capacity <= 0:
			none = append(none, r.Target)
		case low == 0 || r.Capacity < low:
			low = r.Capacity
		}
	}
	if low == 0 {
		low = o.MinRate
	}
	rate := roundSig(o.RateFraction*low, 2)
	if len(none) == 0 {
		return rate, ""
	}
	return rate, fmt.Sprintf("%s met the SLO at no rate tried, so %s req/s is below no capacity of theirs.",
		joinAnd(none), rps(rate))
}

// openLine is the open-loop comparison: each other stack's P50 and P99
// against the baseline's, with the P50 difference's interval and test.
func openLine(c *analyze.Comparison, rate float64, below bool) string {
	b := c.BaselineSide()
	var parts []string
	for i, s := range c.Sides {
		if i == c.Baseline {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s P50 %s vs %s %s, %s; P99 %s vs %s", s.Label, ms(s.Latency.P50),
			b.Label, ms(b.Latency.P50), significance(c, "p50", i), ms(s.Latency.P99), ms(b.Latency.P99)))
	}
	where := ""
	if below {
		where = ", below every capacity"
	}
	return fmt.Sprintf("Latency at %s req/s open loop%s: %s.", rps(rate), where, strings.Join(parts, "; "))
}

// significance words side i's difference on metric key: the difference,
// its interval and whether it is beyond noise.
func significance(c *analyze.Comparison, key string, i int) string {
	for _, m := range c.Latency {
		if m.Key != key || i >= len(m.Deltas) {
			continue
		}
		dl := m.Deltas[i]
		s := fmt.Sprintf("%+.3g ms", dl.Diff)
		if !dl.Sig.Known() {
			return s + " (noise unknown)"
		}
		s += fmt.Sprintf(" [%.3g, %.3g]", dl.Sig.CILow, dl.Sig.CIHigh)
		if dl.Sig.PValue > 0 {
			s += fmt.Sprintf(", p=%.2g", dl.Sig.PValue)
		}
		switch {
		case dl.Sig.Significant:
			return s + ", beyond noise"
		case dl.Sig.CILow > 0 || dl.Sig.CIHigh < 0:
			// The interval resamples requests; the test compares iterations.
			return s + ", within run-to-run noise: the iterations disagree"
		}
		return s + ", within noise"
	}
	return "difference not computed"
}

// belowAll reports whether rate is below every capacity found.
func belowAll(rs []*capacity.Result, rate float64) bool {
	for _, r := range rs {
		if r.Capacity <= rate {
			return false
		}
	}
	return true
}
