package results

import "time"

// HistoryRow is one target of one run, as the runs directory's history
// index (pkg/store) and a published index (pkg/publish) hold it.
// Latencies are in milliseconds; nil means not measured (e.g. wrk gives
// no P95; imported runs have no histogram, hence no merged figures).
type HistoryRow struct {
	RunID   string `json:"run_id"`
	RunName string `json:"run_name"`
	// Dir is the run directory, relative to the runs directory when inside it.
	Dir string `json:"dir"`
	// Start is the run start; zero when unknown.
	Start time.Time `json:"start"`
	// Imported is true for runs converted from another tool, named by Tool.
	Imported    bool    `json:"imported"`
	Tool        string  `json:"tool,omitempty"`
	Partial     bool    `json:"partial,omitempty"`
	Host        string  `json:"host,omitempty"`
	Model       string  `json:"model"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate,omitempty"`
	Target      string  `json:"target"`
	URL         string  `json:"url,omitempty"`
	Iterations  int     `json:"iterations"`
	Requests    int64   `json:"requests"`
	Successes   int64   `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
	// P50, P95, P99 and MeanMs are the mean over iterations.
	P50    *float64 `json:"p50_ms"`
	P95    *float64 `json:"p95_ms"`
	P99    *float64 `json:"p99_ms"`
	MeanMs *float64 `json:"mean_ms"`
	// The merged-histogram percentiles over all iterations.
	P50Merged *float64 `json:"p50_merged_ms,omitempty"`
	P95Merged *float64 `json:"p95_merged_ms,omitempty"`
	P99Merged *float64 `json:"p99_merged_ms,omitempty"`
	// Throughput is the mean over iterations, in requests per second.
	Throughput    float64 `json:"throughput_rps"`
	ThroughputMin float64 `json:"throughput_min_rps"`
	ThroughputMax float64 `json:"throughput_max_rps"`
}
