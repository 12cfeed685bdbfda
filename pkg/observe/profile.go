package observe

import (
	"github.com/authbench/authbench/pkg/plan"
)

// Metric names a profile entry may give (plan.Metric.MetricName). Each
// query should return one series per component (sum() it); several are
// added up.
const (
	// MetricCPU is CPU in cores, a rate such as rate(...[{{.rateInterval}}]).
	// A sum(rate(counter[...])) query has its counter read directly, with
	// scrape times (prometheus_counters.go); any other rate is integrated
	// over the step into a CPU-seconds counter.
	MetricCPU = "cpu"
	// MetricCPUSeconds is a CPU-seconds counter. It wins over MetricCPU when
	// both are given; prefer it when scrapes are frequent (every few
	// seconds), since a rate lags by half its interval.
	MetricCPUSeconds = "cpuSeconds"
	// MetricMemory is memory in bytes (working set or RSS).
	MetricMemory = "memory"
	// MetricCFSPeriods, MetricCFSThrottledPeriods and
	// MetricCFSThrottledSeconds are the CFS counters.
	MetricCFSPeriods          = "cfsPeriods"
	MetricCFSThrottledPeriods = "cfsThrottledPeriods"
	MetricCFSThrottledSeconds = "cfsThrottledSeconds"
	// MetricCPULimit is the CPU limit in cores (quota / period).
	MetricCPULimit = "cpuLimit"
	// MetricMemoryLimit is the memory limit in bytes.
	MetricMemoryLimit = "memoryLimit"
)

// MetricNames lists the metric names a profile may use.
var MetricNames = []string{MetricCPU, MetricCPUSeconds, MetricMemory, MetricCFSPeriods,
	MetricCFSThrottledPeriods, MetricCFSThrottledSeconds, MetricCPULimit, MetricMemoryLimit}

// containerSelector selects one container's cAdvisor series; the pod is a
// regular expression so that "kube-auth-proxy-.*" follows a deployment.
const containerSelector = `{namespace="{{.namespace}}",pod=~"{{.pod}}",container="{{.container}}"}`

// DefaultProfile is the profile for Kubernetes containers, from the
// kubelet's cAdvisor metrics.
func DefaultProfile() []plan.Metric {
	s := containerSelector
	return []plan.Metric{
		{MetricName: MetricCPU, Query: `sum(rate(container_cpu_usage_seconds_total` + s + `[{{.rateInterval}}]))`},
		{MetricName: MetricMemory, Query: `sum(container_memory_working_set_bytes` + s + `)`},
		{MetricName: MetricCFSPeriods, Query: `sum(container_cpu_cfs_periods_total` + s + `)`},
		{MetricName: MetricCFSThrottledPeriods, Query: `sum(container_cpu_cfs_throttled_periods_total` + s + `)`},
		{MetricName: MetricCFSThrottledSeconds, Query: `sum(container_cpu_cfs_throttled_seconds_total` + s + `)`},
		{MetricName: MetricCPULimit, Query: `sum(container_spec_cpu_quota` + s + `) / sum(container_spec_cpu_period` + s + `)`},
		{MetricName: MetricMemoryLimit, Query: `sum(container_spec_memory_limit_bytes` + s + `) > 0`},
	}
}

// ProcessProfile is a profile for processes exposing the standard process
// collector metrics (Go and Python clients, kube-rbac-proxy, oauth2-proxy):
// the scrape job is named after the component ({{.name}}).
func ProcessProfile() []plan.Metric {
	s := `{job="{{.name}}"}`
	return []plan.Metric{
		{MetricName: MetricCPUSeconds, Query: `sum(process_cpu_seconds_total` + s + `)`},
		{MetricName: MetricMemory, Query: `sum(process_resident_memory_bytes` + s + `)`},
	}
}
