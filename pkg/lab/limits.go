package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// Limit caps one component's resources through its cgroup: a CFS quota of
// MilliCPU millicores and a memory limit of MemoryBytes. Zero means no limit.
type Limit struct {
	Component   string `json:"component"`
	MilliCPU    int64  `json:"millicpu,omitempty"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
}

// String formats the limit as its value part, e.g. "50m" or "500m,256Mi".
func (l Limit) String() string {
	var parts []string
	if l.MilliCPU > 0 {
		parts = append(parts, fmt.Sprintf("%dm", l.MilliCPU))
	}
	if l.MemoryBytes > 0 {
		parts = append(parts, formatBytes(l.MemoryBytes))
	}
	return strings.Join(parts, ",")
}

// NoLimit is the value that lifts a component's limits, as in
// `authbench lab limit COMPONENT=none`.
const NoLimit = "none"

// None reports a limit without CPU and memory: no limit.
func (l Limit) None() bool { return l.MilliCPU == 0 && l.MemoryBytes == 0 }

// ParseLimit reads "COMPONENT=CPU[,MEM]" as in `--limit oauth2-proxy=50m`
// or `--limit oauth2-proxy=500m,256Mi`, the one limit syntax of every
// command. CPU is millicores ("50m") or cores ("0.5", "2"); MEM is bytes
// with an optional suffix (Ki, Mi, Gi, K, M, G). An empty CPU ("=,256Mi")
// sets only the memory limit. COMPONENT=none yields a Limit with neither
// (no limit), which only `lab limit` accepts.
func ParseLimit(s string) (Limit, error) {
	name, val, ok := strings.Cut(strings.TrimSpace(s), "=")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if ok && name != "" && strings.EqualFold(val, NoLimit) {
		return Limit{Component: name}, nil
	}
	l, err := parseLimitValue(s, name, val, ok)
	if err != nil {
		return Limit{}, fmt.Errorf("%w (or COMPONENT=%s to lift its limits)", err, NoLimit)
	}
	return l, nil
}

func parseLimitValue(s, name, val string, ok bool) (Limit, error) {
	if !ok || name == "" || val == "" {
		return Limit{}, fmt.Errorf("limit %q: want COMPONENT=CPU[,MEM], e.g. oauth2-proxy=50m or oauth2-proxy=500m,256Mi", s)
	}
	l := Limit{Component: name}
	cpu, mem, hasMem := strings.Cut(val, ",")
	var err error
	if strings.TrimSpace(cpu) != "" {
		if l.MilliCPU, err = parseMilliCPU(strings.TrimSpace(cpu)); err != nil {
			return Limit{}, fmt.Errorf("limit %q: cpu: %w", s, err)
		}
	}
	if hasMem {
		if l.MemoryBytes, err = parseBytes(strings.TrimSpace(mem)); err != nil {
			return Limit{}, fmt.Errorf("limit %q: memory: %w", s, err)
		}
	}
	if l.None() {
		return Limit{}, fmt.Errorf("limit %q: give a cpu or a memory limit", s)
	}
	return l, nil
}

// ParseLimits parses limits as ParseLimit does; a component given twice
// is an error.
func ParseLimits(values []string) ([]Limit, error) {
	seen := map[string]bool{}
	var out []Limit
	for _, v := range values {
		l, err := ParseLimit(v)
		if err != nil {
			return nil, err
		}
		if seen[l.Component] {
			return nil, fmt.Errorf("limit for %s given twice", l.Component)
		}
		seen[l.Component] = true
		out = append(out, l)
	}
	return out, nil
}

func parseMilliCPU(s string) (int64, error) {
	if v, ok := strings.CutSuffix(s, "m"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q: want positive millicores such as 50m", s)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%q: want millicores (50m) or cores (0.5)", s)
	}
	n := int64(f*1000 + 0.5)
	if n < 1 {
		return 0, fmt.Errorf("%q: below 1 millicore", s)
	}
	return n, nil
}

var byteSuffixes = []struct {
	suffix string
	mult   int64
}{
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
	{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"", 1},
}

func parseBytes(s string) (int64, error) {
	for _, b := range byteSuffixes {
		v, ok := strings.CutSuffix(s, b.suffix)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q: want a positive size such as 256Mi", s)
		}
		return n * b.mult, nil
	}
	return 0, fmt.Errorf("%q: want a size such as 256Mi", s)
}

// formatBytes prints the largest binary suffix that divides n exactly.
func formatBytes(n int64) string {
	for _, b := range []struct {
		suffix string
		mult   int64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n%b.mult == 0 {
			return fmt.Sprintf("%d%s", n/b.mult, b.suffix)
		}
	}
	return strconv.FormatInt(n, 10)
}
