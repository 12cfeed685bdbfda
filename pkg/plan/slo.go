package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParsePercent reads a percentage such as "99.9%" as the fraction 0.999.
func ParsePercent(s string) (float64, error) {
	v, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("want a percentage such as \"99.9%%\", got %q", s)
	}
	// Round off the binary noise of the division: "99.9%" is 0.999.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f/100, 'g', 12, 64), 64)
	return r, nil
}

// sloTerm is one objective of ParseSLO: its key, the comparison it
// takes, and where its value goes.
type sloTerm struct {
	field string
	upper bool // a maximum (p99<100ms) rather than a minimum
	set   func(*SLO, string) error
}

var sloTerms = map[string]sloTerm{
	"p50":          {FieldSLOP50, true, func(s *SLO, v string) error { return setDuration(&s.P50, v) }},
	"p95":          {FieldSLOP95, true, func(s *SLO, v string) error { return setDuration(&s.P95, v) }},
	"p99":          {FieldSLOP99, true, func(s *SLO, v string) error { return setDuration(&s.P99, v) }},
	"success_rate": {FieldSLOSuccessRate, false, setSuccessRate},
	"throughput":   {FieldSLOThroughput, false, setThroughput},
}

// ParseSLO reads the scenario's slo keys in one line, as --slo takes them:
// "p99<100ms,success_rate>=99.9%,throughput>=500". Latencies (p50, p95,
// p99) are maxima written with < or <=; success_rate (a fraction or a
// percentage) and throughput (requests per second) are minima written
// with > or >=. It returns the SLO and the fields it set, for Given;
// Validate checks the values.
func ParseSLO(s string) (*SLO, []string, error) {
	out := &SLO{}
	var fields []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		i := strings.IndexAny(part, "<>=")
		key := strings.TrimSpace(part[:max(i, 0)])
		t, ok := sloTerms[key]
		if i < 0 || !ok {
			return nil, nil, fmt.Errorf("slo %q: want KEY<VALUE or KEY>=VALUE with KEY p50, p95, p99, success_rate or throughput", part)
		}
		op, val := cutOp(part[i:])
		if (t.upper && op[0] != '<') || (!t.upper && op[0] != '>') {
			want := ">="
			if t.upper {
				want = "<"
			}
			return nil, nil, fmt.Errorf("slo %q: %s takes %s", part, key, want)
		}
		if err := t.set(out, val); err != nil {
			return nil, nil, fmt.Errorf("slo %q: %s: %w", part, key, err)
		}
		fields = append(fields, t.field)
	}
	if len(fields) == 0 {
		return nil, nil, fmt.Errorf("slo %q: no objective; want e.g. \"p99<100ms,success_rate>=99.9%%\"", s)
	}
	return out, fields, nil
}

// cutOp splits "<=100ms" into its comparison and its value.
func cutOp(s string) (op, val string) {
	n := 1
	if len(s) > 1 && s[1] == '=' {
		n = 2
	}
	return s[:n], strings.TrimSpace(s[n:])
}

func setDuration(d *Duration, v string) error {
	x, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want a duration such as 100ms, got %q", v)
	}
	*d = Duration(x)
	return nil
}

func setSuccessRate(s *SLO, v string) error {
	if strings.HasSuffix(v, "%") {
		f, err := ParsePercent(v)
		s.SuccessRate = f
		return err
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("want a fraction (0.999) or a percentage (99.9%%), got %q", v)
	}
	s.SuccessRate = f
	return nil
}

func setThroughput(s *SLO, v string) error {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(v, "/s"), "rps"))
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("want requests per second such as 500, got %q", v)
	}
	s.Throughput = f
	return nil
}
