// Package results defines what a run produced: the run.json schema and the
// per-second timeline. Every later stage (analysis, reports, comparison,
// history) reads only these types, so every number in a report traces back
// to a field here.
package results

import (
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// SchemaVersion is the version of the run.json layout written by this build.
const SchemaVersion = 1

// File names inside a run directory.
const (
	RunFile      = "run.json"
	TimelineFile = "timeline.json"
	SummaryFile  = "summary.md"
)

// KindCapacity marks a capacity search's run (Run.Kind).
const KindCapacity = "capacity"

// BasisSLOCapacity marks sizing on the capacity under an SLO (Capacity.Basis).
const BasisSLOCapacity = "slo-capacity"

// Run is the content of run.json.
type Run struct {
	SchemaVersion    int       `json:"schema_version"`
	AuthbenchVersion string    `json:"authbench_version"`
	Name             string    `json:"name"`
	ID               string    `json:"id"`
	Start            time.Time `json:"start"`
	End              time.Time `json:"end"`
	// Kind says what the run measured: "" for the iterations of one load,
	// KindCapacity for a capacity search whose Results are its steps (one
	// per offered rate, in the order measured), points of a curve rather
	// than iterations of one load. Default "".
	Kind string `json:"kind,omitempty"`
	// Partial is true when the run was interrupted; what was measured is kept.
	Partial bool `json:"partial,omitempty"`
	// Imported is set for runs converted from another tool's output.
	Imported *Import `json:"imported,omitempty"`
	// CommandLine is os.Args with secrets redacted.
	CommandLine []string    `json:"command_line,omitempty"`
	Plan        plan.Plan   `json:"plan"`
	Environment Environment `json:"environment"`
	// Results has one entry per target x iteration, in execution order.
	Results []Result `json:"results"`
	// Findings are the diagnosis; SLO the objective checks.
	Findings []Finding  `json:"findings,omitempty"`
	SLO      []SLOCheck `json:"slo,omitempty"`
	// Capacity is the sizing advice per target.
	Capacity []Capacity `json:"capacity,omitempty"`
	// Lab describes the local lab the run targeted, if any.
	Lab *Lab `json:"lab,omitempty"`
	// UnobservedLab, when set, is a lab the targets point at that the run
	// did not sample (not running, not named, or every component
	// unreachable), so its resource figures are missing.
	UnobservedLab *UnobservedLab `json:"unobserved_lab,omitempty"`
	// Faults are the faults set on or cleared from the lab's links during
	// the run, and those already in force when it began, in time order.
	// Default nil: no fault proxy, or no fault.
	Faults []FaultEvent `json:"faults,omitempty"`
	// ReplicaCurve is a `capacity --replicas` run's capacity per replica
	// count (nil otherwise).
	ReplicaCurve *ReplicaCurve `json:"replica_curve,omitempty"`
	// Ladder is the layer-by-layer attribution of a ladder run;
	// its Results are then one per rung x round.
	Ladder *Ladder `json:"ladder,omitempty"`
	// Files lists the files of the run directory, relative to it.
	Files []string `json:"files,omitempty"`
}

// Import records where an imported run came from.
type Import struct {
	Tool  string   `json:"tool"` // "hey" or "wrk"
	Files []string `json:"files"`
}

// Environment is a fingerprint of where and against what a run happened, so
// that a comparison can tell unlike runs apart.
type Environment struct {
	Host      string `json:"host"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
	// Targets fingerprints each target from its first response.
	Targets []TargetFingerprint `json:"targets"`
}

// TargetFingerprint identifies the backend behind a target.
type TargetFingerprint struct {
	Target string `json:"target"`
	URL    string `json:"url"`
	// Status of the probe request.
	Status int `json:"status,omitempty"`
	// Server is the response's Server header.
	Server string `json:"server,omitempty"`
	// BodySHA256 is the hex SHA-256 of the first response body.
	BodySHA256 string `json:"body_sha256,omitempty"`
	// Error is set when the probe failed.
	Error string `json:"error,omitempty"`
}

// Result is one target x iteration.
type Result struct {
	Target    string     `json:"target"`
	Iteration int        `json:"iteration"` // 1-based
	Model     plan.Model `json:"model"`
	// IOPath is how the load engine reached the socket (epoll, netpoll,
	// net/http), when it says.
	IOPath string    `json:"io_path,omitempty"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	// Requests completed (answered or failed); Successes are HTTP < 400.
	Requests    int64   `json:"requests"`
	Successes   int64   `json:"successes"`
	SuccessRate float64 `json:"success_rate"` // fraction, 0 when no request
	// ThroughputRPS is completed requests (any outcome) per second, as
	// hey's Requests/sec; GoodputRPS counts successes only, so a storm of
	// fast 401s shows as throughput without goodput.
	ThroughputRPS float64 `json:"throughput_rps"`
	GoodputRPS    float64 `json:"goodput_rps"`
	DurationS     float64 `json:"duration_s"`
	// Latency is corrected (from intended send time) in the open model.
	Latency Latency `json:"latency_ms"`
	// Open model only.
	LatencyUncorrected *Latency `json:"latency_uncorrected_ms,omitempty"`
	TargetRPS          float64  `json:"target_rps,omitempty"`
	AchievedRPS        *float64 `json:"achieved_rps,omitempty"`
	LateSends          *int64   `json:"late_sends,omitempty"`
	// SendLag is how late the open loop sent its requests (actual minus
	// intended send time), when the engine measures it. Nil otherwise.
	SendLag *Lag `json:"send_lag,omitempty"`
	// Unsent counts requests of a timed open-loop iteration that were due
	// before its end but never sent because every connection was busy.
	Unsent *int64 `json:"unsent,omitempty"`
	// Stages has one entry per stage of a staged open loop, in order.
	// Default nil: one rate.
	Stages []Stage `json:"stages,omitempty"`
	// Status counts responses by HTTP status code ("200": n).
	Status map[string]int64 `json:"status"`
	// Errors counts transport failures by class (refused, reset, timeout,
	// tls, dns, other); ErrorSamples holds one message per class.
	Errors       map[string]int64  `json:"errors"`
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	Phases       Phases            `json:"phases_ms"`
	// HistogramFile is the .hlog file, relative to the run directory.
	HistogramFile string `json:"histogram_file,omitempty"`
	// Components are resource samples per component.
	Components []ComponentUsage `json:"components,omitempty"`
	// Pods, when the load came from pods (run --pods), is the per-pod
	// table and coverage. Default nil: load from this process.
	Pods *PodExecution `json:"pods,omitempty"`
	// APIServer counts the API server's TokenReviews and SARs during the
	// iteration, when a review counter was given: each review is an API
	// server round trip the auth chain pays for.
	APIServer *APIServerReviews `json:"apiserver,omitempty"`
	// Gateway is the gateway's own account of the phase (its metrics
	// endpoint read at the window's edges), when the run targets a lab
	// gateway whose metrics can be read. Default nil.
	Gateway *Gateway `json:"gateway,omitempty"`
	// Answers counts the responses the gateway made itself, by class
	// (pkg/load's Answer* classes: an authz error or timeout, an authz
	// denial, another local reply), as the lab's Envoy marks them in a
	// response header; they are also counted in Status. Default nil:
	// none marked.
	Answers map[string]int64 `json:"gateway_answers,omitempty"`
	// Host is the whole host's CPU over the phase, when /proc/stat could
	// be read. Default nil.
	Host *HostCPU `json:"host,omitempty"`
	// Unavailable names what the source did not measure, so that a zero
	// reads "unknown" rather than "zero": Latency keys ("min", "stddev",
	// "p75", "p90", "p999", "p9999"), "phases" (or "phases.tls", ...),
	// "status" (no per-code counts), "timeline", "histogram", "start".
	// Empty for authbench's own runs; set by importers (hey, wrk).
	Unavailable []string `json:"unavailable,omitempty"`
}

// Latency summarises a latency distribution, in milliseconds.
type Latency struct {
	Min    float64 `json:"min"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	P50    float64 `json:"p50"`
	P75    float64 `json:"p75"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	P9999  float64 `json:"p9999"`
	Max    float64 `json:"max"`
}

// Phases are hey's "Details": per-phase mean, fastest and slowest, in ms.
// DNS and Connect happen only on new connections; Count says how many
// requests each phase was observed on.
type Phases struct {
	DNS     Phase `json:"dns"`
	Connect Phase `json:"connect"`
	TLS     Phase `json:"tls"`
	Write   Phase `json:"write"`
	Wait    Phase `json:"wait"`
	Read    Phase `json:"read"`
}

// Phase is one phase's statistics in milliseconds.
type Phase struct {
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Count int64   `json:"count"`
}

// Timeline is the content of timeline.json: per-second points per result.
type Timeline struct {
	Series []Series `json:"series"`
}

// Series is the per-second timeline of one target x iteration.
type Series struct {
	Target    string  `json:"target"`
	Iteration int     `json:"iteration"`
	Points    []Point `json:"points"`
}

// Point is one second of a series. T is seconds since the iteration start
// (the start of the interval).
type Point struct {
	T        float64 `json:"t"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	// AuthErrors counts 401 and 403 responses in the second.
	AuthErrors int64   `json:"auth_errors,omitempty"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
}

// Finding is one diagnosis: kind, how serious, which component,
// the numbers from this run that show it, and what to do.
type Finding struct {
	Kind      string `json:"kind"`
	Severity  string `json:"severity"` // info, warning, critical
	Target    string `json:"target,omitempty"`
	Component string `json:"component,omitempty"`
	Evidence  string `json:"evidence"`
	Advice    string `json:"advice"`
	Values    Values `json:"values,omitempty"`
}

// Values are a finding's raw numbers, keyed by name.
type Values map[string]float64

// SLOCheck is one objective evaluated for one target.
type SLOCheck struct {
	Target    string  `json:"target"`
	Objective string  `json:"objective"` // p50, p95, p99, success_rate, throughput
	Limit     float64 `json:"limit"`
	Measured  float64 `json:"measured"`
	Unit      string  `json:"unit"`
	Pass      bool    `json:"pass"`
}

// Capacity is sizing advice for one target, from its measured throughput
// and its components' measured CPU and memory.
type Capacity struct {
	Target string `json:"target"`
	// PerReplicaRPS is the mean throughput measured, taken as what one
	// replica of each component serves.
	PerReplicaRPS float64 `json:"per_replica_rps"`
	// Basis is BasisSLOCapacity when PerReplicaRPS is the rate a capacity
	// search found served under the SLO; "" for a mean throughput.
	Basis string `json:"basis,omitempty"`
	// Utilization is the planned fraction of PerReplicaRPS (headroom).
	Utilization float64 `json:"utilization"`
	// TargetRPS is the planned load; Replicas serve it at Utilization.
	// Both are 0 when no target was given.
	TargetRPS float64 `json:"target_rps,omitempty"`
	Replicas  int     `json:"replicas,omitempty"`
	// Components are the resource recommendations per component.
	Components []ResourceAdvice `json:"components,omitempty"`
	// Notes qualify the figures (throttled peaks, saturated runs).
	Notes []string `json:"notes,omitempty"`
}

// ResourceAdvice recommends Kubernetes requests and limits for one
// component. CPU is in cores, memory in bytes.
type ResourceAdvice struct {
	Component string `json:"component"`
	Role      string `json:"role,omitempty"`
	// Measured: peak and 95th percentile of per-second CPU, peak memory,
	// and the limit in force (0: none).
	CPUPeak         float64 `json:"cpu_peak_cores"`
	CPUP95          float64 `json:"cpu_p95_cores"`
	MemPeak         float64 `json:"mem_peak_bytes"`
	CurrentCPULimit float64 `json:"current_cpu_limit_cores,omitempty"`
	// Recommended requests and limits.
	CPURequest float64 `json:"cpu_request_cores"`
	CPULimit   float64 `json:"cpu_limit_cores"`
	MemRequest float64 `json:"mem_request_bytes"`
	MemLimit   float64 `json:"mem_limit_bytes"`
	// Throttled is true when the peak was capped by a limit, so the real
	// need may be higher than recommended.
	Throttled bool `json:"throttled,omitempty"`
}

// ComponentUsage is what one component used during one result's window.
// CPU is in cores, memory in bytes.
type ComponentUsage struct {
	Name            string  `json:"name"`
	Role            string  `json:"role,omitempty"`
	Source          string  `json:"source"` // local, prometheus
	CPUIdle         float64 `json:"cpu_idle_cores"`
	CPUMean         float64 `json:"cpu_mean_cores"`
	CPUPeak         float64 `json:"cpu_peak_cores"`
	CPUSecondsPer1k float64 `json:"cpu_seconds_per_1k_requests"`
	RPSPerCore      float64 `json:"rps_per_core,omitempty"`
	MemStart        float64 `json:"mem_start_bytes"`
	MemMean         float64 `json:"mem_mean_bytes"`
	MemPeak         float64 `json:"mem_peak_bytes"`
	// CPULimit is quota/period in cores; 0 means no limit.
	CPULimit         float64 `json:"cpu_limit_cores,omitempty"`
	MemLimit         float64 `json:"mem_limit_bytes,omitempty"`
	ThrottledRatio   float64 `json:"throttled_ratio"`
	ThrottledSeconds float64 `json:"throttled_seconds"`
	Periods          int64   `json:"periods,omitempty"`
	ThrottledPeriods int64   `json:"throttled_periods,omitempty"`
	// Samples is the per-second series, for charts.
	Samples []Sample `json:"samples,omitempty"`
}

// Sample is one reading of a component.
type Sample struct {
	T        float64 `json:"t"` // seconds since the result's start
	CPU      float64 `json:"cpu_cores"`
	Mem      float64 `json:"mem_bytes"`
	Throttle float64 `json:"throttled_ratio,omitempty"`
}

// Lab records the lab a run targeted: which real component plays which role.
type Lab struct {
	Dir        string         `json:"dir,omitempty"`
	Stacks     []string       `json:"stacks,omitempty"`
	Components []LabComponent `json:"components,omitempty"`
	Notes      []string       `json:"notes,omitempty"`
}

// UnobservedLab is a lab a run targeted but could not sample.
type UnobservedLab struct {
	// Dir is the lab directory.
	Dir string `json:"dir"`
	// Reason says why it was not observed.
	Reason string `json:"reason"`
}

// LabComponent is one process of the lab.
type LabComponent struct {
	Name    string `json:"name"`
	Role    string `json:"role"`
	Version string `json:"version,omitempty"`
	URL     string `json:"url,omitempty"`
	Limit   string `json:"limit,omitempty"`
	// Workload is where a Kubernetes lab runs the component, e.g.
	// "Deployment authbench/oauth2-proxy, container oauth2-proxy".
	Workload string `json:"workload,omitempty"`
	// Standin is what a stand-in did per request, with the lab's
	// what-ifs (nil for a real component).
	Standin *Standin `json:"standin,omitempty"`
	// ReplicaOf names the component this is a replica of (`lab scale`),
	// for replicas beyond the first.
	ReplicaOf string `json:"replica_of,omitempty"`
}

// Standin is how one of authbench's stand-ins ran: what it asked the API
// server per uncached request, its cache, and its API client's rate limit.
type Standin struct {
	// Plays is the real component's name ("oauth-proxy", "kube-auth-proxy").
	Plays string `json:"plays"`
	// CallsPerRequest is the API calls an uncached request makes.
	CallsPerRequest int `json:"api_calls_per_request"`
	// APIQPS and APIBurst are its API client's token bucket (one per
	// kind of review); CapRPS the uncached requests a second one replica
	// serves within them.
	APIQPS   float64 `json:"api_qps"`
	APIBurst int     `json:"api_burst"`
	CapRPS   float64 `json:"cap_rps"`
	// Cache says what it caches ("no cache").
	Cache string `json:"cache"`
	// WhatIf lists the lab flags that changed it from the real component
	// (empty: as the real one).
	WhatIf []string `json:"what_if,omitempty"`
	// Flag is the lab flag that changes its QPS ("" for none).
	Flag string `json:"flag,omitempty"`
	// Identity is the API caller it makes its reviews as (a lab user, or
	// a ServiceAccount's name), to find its share in the audit counts.
	Identity string `json:"identity,omitempty"`
}

// Lag summarises how late requests were sent against their schedule, in
// milliseconds.
type Lag struct {
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}
