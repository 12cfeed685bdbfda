package scenario

import (
	"github.com/authbench/authbench/pkg/plan"
)

// load copies the load settings given and records them in p.Given; the
// plan layer checks their values (see plan.Validate).
func (b *builder) load(p *plan.Plan, l *loadSpec) {
	const path = "load"
	out := &p.Load
	if l.Requests != nil {
		out.Requests = *l.Requests
		b.give(p, l, path, "requests")
	}
	if l.Duration != nil {
		out.Duration = plan.Duration(*l.Duration)
		b.give(p, l, path, "duration")
	}
	if l.Concurrency != nil {
		out.Concurrency = *l.Concurrency
		b.give(p, l, path, "concurrency")
	}
	if l.Rate != nil {
		out.Rate = *l.Rate
		b.give(p, l, path, "rate")
	}
	if l.Stages != nil {
		out.Stages = plan.Stages(*l.Stages)
		b.give(p, l, path, "stages")
	}
	if l.Iterations != nil {
		out.Iterations = *l.Iterations
		b.give(p, l, path, "iterations")
	}
	if w := l.Warmup; w != nil {
		out.WarmupRequests, out.WarmupDuration = w.requests, plan.Duration(w.duration)
		b.give(p, l, path, "warmup")
	}
	if l.Delay != nil {
		out.Delay = plan.Duration(*l.Delay)
		b.give(p, l, path, "delay")
	}
}

func (b *builder) client(p *plan.Plan, c *clientSpec) {
	const path = "client"
	p.Client = plan.Client{
		HTTP2: c.HTTP2, DisableKeepAlive: c.DisableKeepalive, Insecure: c.Insecure,
		CACert: b.file(c, path, "cacert", c.CACert),
		Cert:   b.file(c, path, "cert", c.Cert),
		Key:    b.file(c, path, "key", c.Key),
	}
	if c.Timeout != nil {
		p.Client.Timeout = plan.Duration(*c.Timeout)
		b.give(p, c, path, "timeout")
	}
	if c.Cert != "" {
		b.give(p, c, path, "cert")
	}
	if c.Key != "" {
		b.give(p, c, path, "key")
	}
}

func (b *builder) slo(p *plan.Plan, s *sloSpec) {
	if s == nil {
		return
	}
	const path = "slo"
	out := &plan.SLO{}
	for _, pc := range []struct {
		key string
		v   *duration
		out *plan.Duration
	}{{"p50", s.P50, &out.P50}, {"p95", s.P95, &out.P95}, {"p99", s.P99, &out.P99}} {
		if pc.v != nil {
			*pc.out = plan.Duration(*pc.v)
			b.give(p, s, path, pc.key)
		}
	}
	if s.SuccessRate != nil {
		out.SuccessRate = float64(*s.SuccessRate)
		b.give(p, s, path, "success_rate")
	}
	if s.Throughput != nil {
		out.Throughput = *s.Throughput
		b.give(p, s, path, "throughput")
	}
	if *out != (plan.SLO{}) || len(p.Given) > 0 && b.gaveUnder(p, path) {
		p.SLO = out
	}
}
