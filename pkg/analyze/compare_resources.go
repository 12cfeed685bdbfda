package analyze

import (
	"fmt"
	"strconv"

	"github.com/authbench/authbench/pkg/results"
)

// ComponentSummary is one component's usage over a side's iterations.
// CPU per request is the comparable figure across runs of different
// throughput; absolute cores are kept for context.
type ComponentSummary struct {
	Name   string `json:"name"`
	Role   string `json:"role,omitempty"`
	Source string `json:"source,omitempty"`
	// CPUSecondsPer1k is CPU-seconds per 1,000 requests over all
	// iterations (request-weighted).
	CPUSecondsPer1k float64 `json:"cpu_seconds_per_1k_requests"`
	CPUIdle         float64 `json:"cpu_idle_cores"`
	CPUMean         float64 `json:"cpu_mean_cores"`
	CPUPeak         float64 `json:"cpu_peak_cores"`
	CPULimit        float64 `json:"cpu_limit_cores,omitempty"`
	// ThrottledRatio is the mean over iterations; ThrottledSeconds the sum.
	ThrottledRatio   float64 `json:"throttled_ratio"`
	ThrottledSeconds float64 `json:"throttled_seconds"`
	MemStart         float64 `json:"mem_start_bytes"`
	MemMean          float64 `json:"mem_mean_bytes"`
	MemPeak          float64 `json:"mem_peak_bytes"`
	MemLimit         float64 `json:"mem_limit_bytes,omitempty"`
	// Samples holds each iteration's per-second samples, for charts.
	Samples [][]results.Sample `json:"-"`
}

// ResourceRow matches one component across sides: by role when the
// component has one (oauth-proxy and kube-auth-proxy are both the
// auth-proxy), else by name. Usage[i] is nil where side i lacks it.
type ResourceRow struct {
	Key   string              `json:"key"`
	Usage []*ComponentSummary `json:"usage"`
}

func resourceRows(sides []*Side, _ int) []ResourceRow {
	var rows []ResourceRow
	index := map[string]int{}
	for i, s := range sides {
		for _, c := range summarizeComponents(s) {
			key := c.Name
			if c.Role != "" && roleUnique(s, c.Role) {
				key = c.Role
			}
			j, ok := index[key]
			if !ok {
				j = len(rows)
				index[key] = j
				rows = append(rows, ResourceRow{Key: key, Usage: make([]*ComponentSummary, len(sides))})
			}
			rows[j].Usage[i] = c
		}
	}
	return rows
}

func roleUnique(s *Side, role string) bool {
	names := map[string]bool{}
	for _, r := range s.Results {
		for _, c := range r.Components {
			if c.Role == role {
				names[c.Name] = true
			}
		}
	}
	return len(names) == 1
}

// summarizeComponents aggregates each component over the side's iterations
// in first-appearance order.
func summarizeComponents(s *Side) []*ComponentSummary {
	var out []*ComponentSummary
	byName := map[string]*ComponentSummary{}
	cpuSec := map[string]float64{}
	reqs := map[string]float64{}
	iters := map[string]float64{}
	for _, r := range s.Results {
		for _, u := range r.Components {
			c, ok := byName[u.Name]
			if !ok {
				c = &ComponentSummary{Name: u.Name, Role: u.Role, Source: u.Source, CPUIdle: u.CPUIdle, MemStart: u.MemStart}
				byName[u.Name] = c
				out = append(out, c)
			}
			n := iters[u.Name]
			c.CPUMean = (c.CPUMean*n + u.CPUMean) / (n + 1)
			c.MemMean = (c.MemMean*n + u.MemMean) / (n + 1)
			c.ThrottledRatio = (c.ThrottledRatio*n + u.ThrottledRatio) / (n + 1)
			iters[u.Name] = n + 1
			c.CPUPeak = max(c.CPUPeak, u.CPUPeak)
			c.MemPeak = max(c.MemPeak, u.MemPeak)
			c.CPULimit = max(c.CPULimit, u.CPULimit)
			c.MemLimit = max(c.MemLimit, u.MemLimit)
			c.ThrottledSeconds += u.ThrottledSeconds
			c.Samples = append(c.Samples, u.Samples)
			cpuSec[u.Name] += cpuSeconds(r, u)
			reqs[u.Name] += float64(r.Requests)
		}
	}
	for _, c := range out {
		if reqs[c.Name] > 0 {
			c.CPUSecondsPer1k = cpuSec[c.Name] / reqs[c.Name] * 1000
		}
	}
	return out
}

// cpuSeconds is the CPU time a component used during one result, from
// the per-1k figure when the sampler computed it, else mean x duration.
func cpuSeconds(r results.Result, u results.ComponentUsage) float64 {
	if u.CPUSecondsPer1k > 0 {
		return u.CPUSecondsPer1k * float64(r.Requests) / 1000
	}
	return u.CPUMean * r.DurationS
}

// ThrottleNoteRatio is the share of throttled CFS periods above which a
// comparison notes the throttling: averages hide it (the migration reports' 50m
// auth proxy showed 3% mean CPU while throttled).
const ThrottleNoteRatio = 0.05

func throttlingNotes(sides []*Side, rows []ResourceRow) []Warning {
	var out []Warning
	for _, r := range rows {
		for i, u := range r.Usage {
			if u == nil || u.ThrottledRatio < ThrottleNoteRatio {
				continue
			}
			limit := "its CPU limit"
			if u.CPULimit > 0 {
				limit = "a " + strconv.FormatFloat(u.CPULimit, 'g', 3, 64) + "-core limit"
			}
			out = append(out, Warning{Kind: "throttling", Message: fmt.Sprintf(
				"%s on %s was CPU-throttled in %s of periods under %s while its mean use was %s cores: the mean hides it, and the latency includes waiting for CPU quota.",
				u.Name, sides[i].Label, FormatFraction(u.ThrottledRatio), limit, sig3(u.CPUMean))})
		}
	}
	return out
}
