package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// heyUnavailable is what hey never prints.
var heyUnavailable = []string{"stddev", "p999", "p9999", "phases.tls", "phases.count", "phases.connect.range", "timeline", "histogram", "start"}

// latencyKeys are every Latency field, unavailable when hey measured no
// successful request.
var latencyKeys = []string{"min", "mean", "p50", "p75", "p90", "p95", "p99", "max"}

var (
	heyPercentile = regexp.MustCompile(`^(\d+(?:\.\d+)?)%\s+in\s+(\S+)\s+secs$`)
	heyCount      = regexp.MustCompile(`^\[(\d+)\]\s+(.*)$`)
)

// heyBlock accumulates one hey output.
type heyBlock struct {
	start    int // the line of its "Summary:"
	r        results.Result
	section  string
	sawTotal bool
	lats     int // percentile lines read
	status   map[string]int64
	errs     map[string]int64
	samples  map[string]string
}

// parseHey splits data at each "Summary:" and parses every output.
func parseHey(data []byte, file string) ([]parsed, error) {
	var out []parsed
	var b *heyBlock
	flush := func(line int) error {
		if b == nil {
			return nil
		}
		if !b.sawTotal {
			return errBadLine(ToolHey, file, line, "Summary", fmt.Errorf("output has no \"Total:\" line"))
		}
		r := b.finish()
		if r.Requests == 0 {
			// hey prints a status code or an error distribution for every
			// run that sent anything: without one the file was cut short.
			return errBadLine(ToolHey, file, b.start, "Summary", errNoRequests)
		}
		out = append(out, parsed{result: r})
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "Summary:" {
			if err := flush(n); err != nil {
				return nil, err
			}
			b = &heyBlock{start: n, status: map[string]int64{}, errs: map[string]int64{}, samples: map[string]string{}, section: "summary"}
			continue
		}
		if b == nil || line == "" {
			continue
		}
		if err := b.line(line); err != nil {
			return nil, errBadLine(ToolHey, file, n, b.section, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("importing hey output: reading %s: %w", file, err)
	}
	if err := flush(0); err != nil {
		return nil, err
	}
	return out, nil
}

// line reads one non-empty line of a hey output.
func (b *heyBlock) line(line string) error {
	switch line {
	case "Response time histogram:":
		b.section = "histogram"
		return nil
	case "Latency distribution:":
		b.section = "latency distribution"
		return nil
	case "Details (average, fastest, slowest):":
		b.section = "details"
		return nil
	case "Status code distribution:":
		b.section = "status code distribution"
		return nil
	case "Error distribution:":
		b.section = "error distribution"
		return nil
	}
	switch b.section {
	case "summary":
		return b.summary(line)
	case "latency distribution":
		return b.percentile(line)
	case "details":
		return b.detail(line)
	case "status code distribution":
		return b.statusLine(line)
	case "error distribution":
		return b.errorLine(line)
	}
	return nil
}

func (b *heyBlock) summary(line string) error {
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return nil
	}
	val = strings.TrimSpace(val)
	var dst *float64
	switch key {
	case "Total":
		dst, b.sawTotal = &b.r.DurationS, true
	case "Slowest":
		dst = &b.r.Latency.Max
	case "Fastest":
		dst = &b.r.Latency.Min
	case "Average":
		dst = &b.r.Latency.Mean
	case "Requests/sec":
		v, err := measure(val)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		b.r.ThroughputRPS = v
		return nil
	default:
		return nil // Total data, Size/request
	}
	parse := number // hey prints NaN for the means of nothing
	if key == "Total" {
		parse = measure
	}
	v, err := parse(strings.TrimSuffix(val, " secs"))
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if key != "Total" {
		v *= 1000 // ms
	}
	*dst = v
	return nil
}

func (b *heyBlock) percentile(line string) error {
	m := heyPercentile.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("unexpected line %q", line)
	}
	v, err := number(m[2])
	if err != nil {
		return err
	}
	ms := v * 1000
	switch m[1] {
	case "50":
		b.r.Latency.P50 = ms
	case "75":
		b.r.Latency.P75 = ms
	case "90":
		b.r.Latency.P90 = ms
	case "95":
		b.r.Latency.P95 = ms
	case "99":
		b.r.Latency.P99 = ms
	}
	b.lats++
	return nil
}

// detail reads "resp wait: 0.0095 secs, 0.0009 secs, 0.0851 secs".
func (b *heyBlock) detail(line string) error {
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return nil
	}
	var vals []float64
	for _, f := range strings.Split(val, ",") {
		v, err := number(strings.TrimSuffix(strings.TrimSpace(f), " secs"))
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		vals = append(vals, v*1000)
	}
	if len(vals) != 3 {
		return fmt.Errorf("%s: want average, fastest and slowest", key)
	}
	ph := results.Phase{Mean: finiteOr0(vals[0]), Min: vals[1], Max: vals[2]}
	p := &b.r.Phases
	switch key {
	case "DNS+dialup":
		// hey prints the overall fastest/slowest here, not the phase's.
		p.Connect = results.Phase{Mean: ph.Mean}
	case "DNS-lookup":
		p.DNS = ph
	case "req write":
		p.Write = ph
	case "resp wait":
		p.Wait = ph
	case "resp read":
		p.Read = ph
	}
	return nil
}

func (b *heyBlock) statusLine(line string) error {
	m := heyCount.FindStringSubmatch(line)
	if m == nil {
		// The output is over; what follows (a separator a script printed
		// between runs) is not hey's.
		b.section = "trailer"
		return nil
	}
	code := m[1]
	n, err := strconv.ParseInt(strings.Fields(m[2])[0], 10, 64)
	if err != nil {
		return fmt.Errorf("status %s: %w", code, err)
	}
	b.status[code] += n
	return nil
}

// errorLine reads "[113]	Get "...": context deadline exceeded".
func (b *heyBlock) errorLine(line string) error {
	m := heyCount.FindStringSubmatch(line)
	if m == nil {
		b.section = "trailer"
		return nil
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return err
	}
	class := ErrorClass(m[2])
	b.errs[class] += n
	if _, ok := b.samples[class]; !ok {
		b.samples[class] = m[2]
	}
	return nil
}

func (b *heyBlock) finish() results.Result {
	r := b.r
	r.Status, r.Errors, r.ErrorSamples = b.status, b.errs, b.samples
	for code, n := range b.status {
		r.Requests += n
		if c, err := strconv.Atoi(code); err == nil && c < 400 {
			r.Successes += n
		}
	}
	for _, n := range b.errs {
		r.Requests += n
	}
	if r.Requests > 0 {
		r.SuccessRate = float64(r.Successes) / float64(r.Requests)
	}
	r.Unavailable = append([]string(nil), heyUnavailable...)
	if b.lats == 0 {
		// No successful request: hey printed no distribution and NaN means.
		r.Latency = results.Latency{}
		r.Phases = results.Phases{}
		r.Unavailable = append(r.Unavailable, latencyKeys...)
		r.Unavailable = append(r.Unavailable, "phases")
	}
	if len(r.ErrorSamples) == 0 {
		r.ErrorSamples = nil
	}
	return r
}

// number parses a float; hey prints "NaN" for means of nothing.
func number(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errNoValue
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v, nil
}

// measure parses a count or a time, which is finite and not negative.
func measure(s string) (float64, error) {
	v, err := number(s)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
		err = fmt.Errorf("want a finite number, not negative, got %s", strings.TrimSpace(s))
	}
	return v, err
}

func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// ErrorClass classifies a transport error message as authbench's engine
// does: refused, reset, timeout, tls, dns or other.
func ErrorClass(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "connection refused"):
		return "refused"
	case strings.Contains(m, "connection reset"), strings.Contains(m, "broken pipe"), strings.Contains(m, "eof"):
		return "reset"
	case strings.Contains(m, "timeout"), strings.Contains(m, "deadline exceeded"):
		return "timeout"
	case strings.Contains(m, "tls"), strings.Contains(m, "x509"), strings.Contains(m, "certificate"):
		return "tls"
	case strings.Contains(m, "no such host"), strings.Contains(m, "lookup "):
		return "dns"
	}
	return "other"
}
