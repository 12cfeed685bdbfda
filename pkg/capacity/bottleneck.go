package capacity

import (
	"github.com/authbench/authbench/pkg/analyze"
)

func bottleneck(c []Point, firstFail float64) *Bottleneck {
	for _, p := range c {
		var best *Bottleneck
		for _, k := range p.Components {
			use := 0.0
			if k.Limit > 0 {
				use = k.CPU / k.Limit
			}
			if use < analyze.LimitUse && k.Throttled <= analyze.ThrottleRatio {
				continue
			}
			if best == nil || best.Limit == 0 || (k.Limit > 0 && use > best.CPU/best.Limit) {
				best = &Bottleneck{Component: k.Name, Role: k.Role, Rate: p.Offered, CPU: k.CPU, Limit: k.Limit,
					Throttled: k.Throttled, Saturated: true}
			}
		}
		if best != nil {
			return best
		}
	}
	at := atRate(c, firstFail)
	if at == nil {
		return nil
	}
	var best *Bottleneck
	for _, k := range at.Components {
		if k.Role == analyze.RoleLoadGenerator {
			continue // the generator's own shortage is the generator-bound finding's
		}
		if best == nil || k.CPU > best.CPU {
			best = &Bottleneck{Component: k.Name, Role: k.Role, Rate: at.Offered, CPU: k.CPU, Limit: k.Limit, Throttled: k.Throttled}
		}
	}
	return best
}

func hostUse(c []Point, capacity float64, cpus int) *HostUse {
	at := atRate(c, capacity)
	if at == nil || cpus <= 0 {
		return nil
	}
	h := &HostUse{Rate: at.Offered, CPUs: cpus}
	n := 0
	for _, k := range at.Components {
		if local(k) {
			h.CPU += k.CPU
			n++
		}
	}
	if n == 0 {
		return nil
	}
	h.Share = h.CPU / float64(cpus)
	h.Contended = h.Share >= analyze.HostContention
	return h
}

// atRate is the curve's point at rate, else its highest point (nil for an
// empty curve).
func atRate(c []Point, rate float64) *Point {
	for i := range c {
		if c[i].Offered == rate {
			return &c[i]
		}
	}
	if len(c) == 0 {
		return nil
	}
	return &c[len(c)-1]
}
