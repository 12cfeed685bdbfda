package plan

import (
	"fmt"
	"math"
	"net/url"
)

// Per-target fields, as Given and FieldError name them for target i.
func targetField(i int, key string) string { return fmt.Sprintf("targets[%d].%s", i, key) }

// FieldTargetMethod, FieldTargetHost and FieldTargetHeaders name target
// i's method, Host override and headers in Given and FieldError.
func FieldTargetMethod(i int) string  { return targetField(i, "method") }
func FieldTargetHost(i int) string    { return targetField(i, "host") }
func FieldTargetHeaders(i int) string { return targetField(i, "headers") }

// targets checks what each target puts on the wire: its method, Host and
// headers, and its rungs' headers.
func (v *validation) targets() {
	for i, t := range v.q.Targets {
		if err := CheckMethod(t.Method); t.Method != "" && err != nil {
			v.add(FieldTargetMethod(i), "%v", err)
		}
		if err := CheckHost(t.Host); t.Host != "" && err != nil {
			v.add(FieldTargetHost(i), "%v", err)
		}
		v.headers(FieldTargetHeaders(i), t.Headers)
		for j, r := range t.Rungs {
			v.headers(fmt.Sprintf("targets[%d].rungs[%d].headers", i, j), r.Headers)
		}
	}
}

func (v *validation) headers(field string, hs []Header) {
	for _, h := range hs {
		if err := CheckHeader(h); err != nil {
			v.add(field, "%v", err)
		}
	}
}

// rate checks the open loop's rate: finite, positive when given, at most
// MaxRate.
func (v *validation) rate() {
	r := v.q.Load.Rate
	if r == 0 && !v.p.given(FieldRate) {
		return
	}
	switch err := CheckRate(r); {
	case err != nil && r <= 0:
		v.add(FieldRate, "%v (leave rate out for a closed loop)", err)
	case err != nil:
		v.add(FieldRate, "%v", err)
	}
}

// finiteSLO refuses what slo's range checks let through: a NaN figure, or
// an infinite throughput, which no measurement can meet and run.json
// cannot record.
func (v *validation) finiteSLO() {
	s := v.q.SLO
	if s == nil {
		return
	}
	if math.IsNaN(s.SuccessRate) {
		v.add(FieldSLOSuccessRate, "must be a finite number, got %g", s.SuccessRate)
	}
	if t := s.Throughput; math.IsNaN(t) || math.IsInf(t, 1) {
		v.add(FieldSLOThroughput, "must be a finite number, got %g", t)
	}
}

// requestsOrDuration refuses a count and a duration given together: hey
// silently ignores -n beside -z, and a run that stops at a time when the
// user asked for a count (or the reverse) is a wrong measurement, so the
// user chooses.
func (v *validation) requestsOrDuration() {
	l := v.q.Load
	if l.Requests > 0 && l.Duration > 0 && v.p.given(FieldRequests) && v.p.given(FieldDuration) {
		v.add(FieldDuration, "give %s or %s, not both", v.origin(FieldRequests, "requests"), v.origin(FieldDuration, "duration"))
	}
}

// origin names field as the user gave it: its flag ("-n"), else key.
func (v *validation) origin(field, key string) string {
	if o, ok := v.p.fromFlag(field); ok {
		return o
	}
	return key
}

// checkURLPort refuses a URL port outside 1-65535, which url.Parse
// accepts and every request would then fail on.
func checkURLPort(u *url.URL) error {
	if p := u.Port(); p != "" {
		return CheckPort(p)
	}
	return nil
}
