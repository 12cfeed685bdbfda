package plan

import (
	"fmt"
)

// validation collects the FieldErrors of one plan: p as given, q as it
// will run.
type validation struct {
	p, q *Plan
	errs Errors
}

func (v *validation) add(field, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Field: field, Origin: v.p.Given[field], Msg: fmt.Sprintf(format, args...)})
}

// bad reports whether field is impossible: negative, or zero when given
// (a zero that was not given means unset, and gets no check).
func (v *validation) bad(field string, negative, zero bool) bool {
	return negative || (zero && v.p.given(field))
}

// name is how to tell the user to set key: as a flag when they
// gave field by flag, else by its scenario key.
func (v *validation) name(field, key string) string {
	if _, ok := v.p.fromFlag(field); ok {
		return "--" + key
	}
	return key
}

func (v *validation) load() {
	l := v.q.Load
	n := len(v.errs)
	// Requests and duration are alternatives (-z wins over -n): a zero is
	// impossible only when the other one is zero too.
	if v.bad(FieldRequests, l.Requests < 0, l.Requests == 0 && l.Duration == 0) {
		v.add(FieldRequests, "must be at least 1, got %d", l.Requests)
	}
	if v.bad(FieldDuration, l.Duration < 0, l.Duration == 0 && l.Requests == 0) {
		v.add(FieldDuration, "must be positive, got %s", l.Duration)
	}
	if l.Concurrency < 1 {
		v.add(FieldConcurrency, "must be at least 1, got %d", l.Concurrency)
	}
	v.rate()
	v.stages()
	v.requestsOrDuration()
	if l.Iterations < 1 {
		v.add(FieldIterations, "must be at least 1, got %d", l.Iterations)
	}
	if l.WarmupRequests < 0 || l.WarmupDuration < 0 {
		v.add(FieldWarmup, "must not be negative")
	}
	if l.Delay < 0 {
		v.add(FieldDelay, "must not be negative, got %s", l.Delay)
	}
	if len(v.errs) == n {
		v.enoughRequests()
	}
}

// enoughRequests checks that every closed-loop worker has a request to
// send, as hey does, naming the setting to change.
func (v *validation) enoughRequests() {
	l := v.q.Load
	if l.Duration != 0 || l.Model() != Closed || l.Requests < 1 || int64(l.Concurrency) <= l.Requests {
		return
	}
	_, cFlag := v.p.fromFlag(FieldConcurrency)
	_, nFlag := v.p.fromFlag(FieldRequests)
	switch {
	case cFlag || nFlag:
		v.add(FieldConcurrency, "cannot exceed requests (-c %d > -n %d)", l.Concurrency, l.Requests)
	case v.p.given(FieldRequests) && !v.p.given(FieldConcurrency):
		v.add(FieldRequests, "%d requests cannot keep the default %d workers busy: raise requests or set concurrency",
			l.Requests, l.Concurrency)
	default:
		v.add(FieldConcurrency, "%d workers cannot exceed %d requests: lower concurrency or raise requests", l.Concurrency, l.Requests)
	}
}

func (v *validation) client() {
	if t := v.q.Client.Timeout; t <= 0 {
		v.add(FieldTimeout, "must be positive, got %s", t)
	}
	c := v.q.Client
	switch {
	case c.Cert != "" && c.Key == "":
		v.add(FieldCert, "a client certificate needs its key: add %s", v.name(FieldCert, "key"))
	case c.Key != "" && c.Cert == "":
		v.add(FieldKey, "a client key needs its certificate: add %s", v.name(FieldKey, "cert"))
	}
	if s := v.q.SampleInterval; v.bad(FieldSampleInterval, s < 0, s == 0) {
		v.add(FieldSampleInterval, "must be positive, got %s", s)
	}
}

func (v *validation) slo() {
	s := v.q.SLO
	if s == nil {
		return
	}
	var prev Duration
	prevKey := ""
	for _, pc := range []struct {
		field, key string
		d          Duration
	}{{FieldSLOP50, "p50", s.P50}, {FieldSLOP95, "p95", s.P95}, {FieldSLOP99, "p99", s.P99}} {
		switch {
		case v.bad(pc.field, pc.d < 0, pc.d == 0):
			v.add(pc.field, "must be positive, got %s", pc.d)
			continue
		case pc.d == 0:
			continue
		case prev > 0 && pc.d < prev:
			v.add(pc.field, "%s is below %s (%s): a higher percentile cannot be faster", pc.d, prevKey, prev)
		}
		prev, prevKey = pc.d, pc.key
	}
	r := s.SuccessRate
	switch {
	case r > 1 && r <= 100:
		v.add(FieldSLOSuccessRate, "must be a fraction in (0, 1], got %g (did you mean \"%g%%\"?)", r, r)
	case v.bad(FieldSLOSuccessRate, r < 0 || r > 1, r == 0):
		v.add(FieldSLOSuccessRate, "must be a fraction in (0, 1] or a percentage such as \"99.9%%\", got %g", r)
	}
	if t := s.Throughput; v.bad(FieldSLOThroughput, t < 0, t == 0) {
		v.add(FieldSLOThroughput, "must be more than 0 requests per second, got %g", t)
	}
}
