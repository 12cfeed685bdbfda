package runner

import (
	"context"
	"fmt"

	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
)

// NewMonitor builds the resource monitor for a plan: authbench itself
// (always, so a bottlenecked load generator is seen), the plan's local
// components, extra ones (a lab's), and the plan's Prometheus components.
func NewMonitor(ctx context.Context, p *plan.Plan, extra []observe.LocalComponent) (*observe.Monitor, error) {
	local := append([]observe.LocalComponent{observe.Self()}, observe.FromPlan(p.Observe)...)
	local = append(local, extra...)
	ls, err := observe.NewLocal(local, observe.LocalOptions{})
	if err != nil {
		return nil, fmt.Errorf("preparing local sampler: %w", err)
	}
	samplers := []observe.Sampler{ls}
	if p.Prometheus != nil {
		ps, err := observe.NewPrometheusFromPlan(ctx, p.Prometheus, p.Observe)
		if err != nil {
			return nil, fmt.Errorf("preparing prometheus sampler: %w", err)
		}
		samplers = append(samplers, ps)
	}
	interval := p.SampleInterval.D()
	if interval <= 0 {
		interval = observe.DefaultInterval
	}
	return observe.NewMonitor(samplers, interval), nil
}
