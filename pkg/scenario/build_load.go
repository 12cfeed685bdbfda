package scenario

import (
	"github.com/authbench/authbench/pkg/plan"
)

func (b *builder) load(l *loadSpec) plan.Load {
	const path = "load"
	var out plan.Load
	if l.Requests != nil {
		if *l.Requests < 1 {
			b.errAt(l, path, "requests", "must be at least 1, got %d", *l.Requests)
		}
		out.Requests = *l.Requests
	}
	if l.Duration != nil {
		if *l.Duration <= 0 {
			b.errAt(l, path, "duration", "must be positive, got %s", l.Duration.std())
		}
		if l.Requests != nil {
			b.errAt(l, path, "duration", "give requests or duration, not both")
		}
		out.Duration = plan.Duration(*l.Duration)
	}
	if l.Concurrency != nil {
		if *l.Concurrency < 1 {
			b.errAt(l, path, "concurrency", "must be at least 1, got %d", *l.Concurrency)
		}
		out.Concurrency = *l.Concurrency
	}
	if l.Rate != nil {
		if *l.Rate <= 0 {
			b.errAt(l, path, "rate", "must be more than 0 requests per second, got %g (leave rate out for a closed loop)", *l.Rate)
		}
		out.Rate = *l.Rate
	}
	if l.Iterations != nil {
		if *l.Iterations < 1 {
			b.errAt(l, path, "iterations", "must be at least 1, got %d", *l.Iterations)
		}
		out.Iterations = *l.Iterations
	}
	if w := l.Warmup; w != nil {
		if w.requests < 0 || w.duration < 0 {
			b.errAt(l, path, "warmup", "must not be negative")
		}
		out.WarmupRequests, out.WarmupDuration = w.requests, plan.Duration(w.duration)
	}
	if l.Delay != nil {
		if *l.Delay < 0 {
			b.errAt(l, path, "delay", "must not be negative, got %s", l.Delay.std())
		}
		out.Delay = plan.Duration(*l.Delay)
	}
	return out
}

// enoughRequests checks, after defaults, that every closed-loop worker has a
// request to send, as hey does.
func (b *builder) enoughRequests(l *loadSpec, out plan.Load) {
	if out.Duration != 0 || out.Model() != plan.Closed || out.Requests < 1 || int64(out.Concurrency) <= out.Requests {
		return
	}
	if l.Concurrency != nil {
		b.errAt(l, "load", "concurrency", "%d workers cannot share %d requests: lower concurrency or raise requests", out.Concurrency, out.Requests)
		return
	}
	b.errAt(l, "load", "requests", "%d requests cannot keep the default %d workers busy: raise requests or set concurrency",
		out.Requests, out.Concurrency)
}

func (b *builder) client(c *clientSpec) plan.Client {
	const path = "client"
	out := plan.Client{
		HTTP2: c.HTTP2, DisableKeepAlive: c.DisableKeepalive, Insecure: c.Insecure,
		CACert: b.file(c, path, "cacert", c.CACert),
		Cert:   b.file(c, path, "cert", c.Cert),
		Key:    b.file(c, path, "key", c.Key),
	}
	if c.Timeout != nil {
		if *c.Timeout <= 0 {
			b.errAt(c, path, "timeout", "must be positive, got %s", c.Timeout.std())
		}
		out.Timeout = plan.Duration(*c.Timeout)
	}
	switch {
	case c.Cert != "" && c.Key == "":
		b.errAt(c, path, "cert", "a client certificate needs its key: add key")
	case c.Key != "" && c.Cert == "":
		b.errAt(c, path, "key", "a client key needs its certificate: add cert")
	}
	return out
}

func (b *builder) slo(s *sloSpec) *plan.SLO {
	if s == nil {
		return nil
	}
	const path = "slo"
	out := &plan.SLO{}
	var prev *duration
	prevKey := ""
	for _, p := range []struct {
		key string
		v   *duration
		out *plan.Duration
	}{{"p50", s.P50, &out.P50}, {"p95", s.P95, &out.P95}, {"p99", s.P99, &out.P99}} {
		if p.v == nil {
			continue
		}
		switch {
		case *p.v <= 0:
			b.errAt(s, path, p.key, "must be positive, got %s", p.v.std())
		case prev != nil && *p.v < *prev:
			b.errAt(s, path, p.key, "%s is below %s (%s): a higher percentile cannot be faster", p.v.std(), prevKey, prev.std())
		}
		*p.out, prev, prevKey = plan.Duration(*p.v), p.v, p.key
	}
	if s.SuccessRate != nil {
		r := float64(*s.SuccessRate)
		switch {
		case r > 1 && r <= 100:
			b.errAt(s, path, "success_rate", "must be a fraction in (0, 1], got %g (did you mean \"%g%%\"?)", r, r)
		case r <= 0 || r > 1:
			b.errAt(s, path, "success_rate", "must be a fraction in (0, 1] or a percentage such as \"99.9%%\", got %g", r)
		}
		out.SuccessRate = r
	}
	if s.Throughput != nil {
		if *s.Throughput <= 0 {
			b.errAt(s, path, "throughput", "must be more than 0 requests per second, got %g", *s.Throughput)
		}
		out.Throughput = *s.Throughput
	}
	if *out == (plan.SLO{}) {
		return nil
	}
	return out
}
