package results

import (
	"strings"
	"time"
)

// PodExecution says how one phase ran when its load came from pods of a
// Kubernetes Job (run --pods): which pods took part, what each covered,
// and how far apart they started. Nil for a phase run in this process.
type PodExecution struct {
	// Asked is the number of pods the run asked for (--pods).
	Asked int `json:"asked"`
	// Completed counts pods whose final result arrived.
	Completed int `json:"completed"`
	// Start is the common start time published to the pods.
	Start time.Time `json:"start"`
	// StartSpreadMs is the largest minus the smallest actual start
	// offset, in ms; across nodes it includes the nodes' clock offsets.
	StartSpreadMs float64 `json:"start_spread_ms"`
	// Coverage states what the merged figures cover when a pod failed.
	Coverage Coverage `json:"coverage"`
	// Pods has one row per pod index.
	Pods []PodStat `json:"pods"`
}

// Coverage is what a partial pod run covered.
type Coverage struct {
	// Pods that delivered a final result, of Asked.
	Pods int `json:"pods"`
	// Requests counted from every pod, including what a failed pod
	// streamed before it stopped.
	Requests int64 `json:"requests"`
	// Seconds of the timeline during which every asked pod was reporting.
	Seconds float64 `json:"seconds"`
}

// Pod states in PodStat.State.
const (
	PodCompleted  = "completed"   // delivered its final result
	PodFailed     = "failed"      // started, then stopped without one
	PodNotStarted = "not-started" // never reported its start
)

// PodStat is one generator pod's row in the per-pod table.
type PodStat struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Node  string `json:"node,omitempty"`
	State string `json:"state"`
	// Reason is why a pod failed or never started.
	Reason   string `json:"reason,omitempty"`
	Requests int64  `json:"requests"`
	Errors   int64  `json:"errors"`
	// IOPath is the I/O path the pod's engine ran on: pods whose
	// seccomp profiles differ may take different paths (a "mixed" run).
	IOPath string `json:"io_path,omitempty"`
	// Unsent counts the pod's open-loop slots due but never sent.
	Unsent int64 `json:"unsent,omitempty"`
	// StartSkewMs is the pod's actual start minus the common start, by
	// its own clock, in ms (its schedule offset removed in the open model).
	StartSkewMs float64 `json:"start_skew_ms"`
	// Seconds is how long the pod sent load.
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the CPU time the pod's container used in the phase;
	// CPULimit its limit in cores (0: none); ThrottledPeriods of Periods
	// are CFS periods in which it hit its quota. Zero when not sampled.
	CPUSeconds       float64 `json:"cpu_seconds,omitempty"`
	CPULimit         float64 `json:"cpu_limit_cores,omitempty"`
	Periods          int64   `json:"cfs_periods,omitempty"`
	ThrottledPeriods int64   `json:"cfs_throttled_periods,omitempty"`
}

// RoleLoadGenerator is the role of a sampled component that is a load
// generator pod of run --pods.
const RoleLoadGenerator = "load-generator"

// WithSampled is the pod's row with its CPU figures taken from its sampled
// component (cAdvisor through Prometheus, named after the Job and the
// index, the prefix of the pod's name) when the pod could not read its own
// cgroup counters. The pod's own counters win: they cover exactly its
// phase, while Prometheus's cover the sampled window.
func (p PodStat) WithSampled(cs []ComponentUsage) PodStat {
	if p.CPUSeconds > 0 || p.Periods > 0 || p.Name == "" {
		return p
	}
	for _, c := range cs {
		suffix, ok := strings.CutPrefix(p.Name, c.Name+"-")
		if c.Role != RoleLoadGenerator || c.Source != "prometheus" || !ok || strings.Contains(suffix, "-") {
			continue // not this pod's: <job>-<index> then one random suffix
		}
		p.CPUSeconds, p.CPULimit = c.CPUMean*p.Seconds, c.CPULimit
		p.Periods, p.ThrottledPeriods = c.Periods, c.ThrottledPeriods
		break
	}
	return p
}
