// Package plan holds the resolved description of a benchmark: every parameter
// the engine needs, with defaults applied. A Plan is built from a scenario file
// and/or command-line flags, handed to the engine, and recorded verbatim in
// run.json, so it must never hold a secret (see Header and auth.Spec).
package plan

import (
	"fmt"
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/redact"
)

// Model names how load is generated.
type Model string

const (
	// Closed is hey's model: Concurrency workers share Requests (or run for
	// Duration), each sending its next request when the previous one returns.
	// Latency measured this way is bounded by capacity: it is queueing time.
	Closed Model = "closed"
	// Open schedules requests at a constant total Rate regardless of how fast
	// the target answers, and measures latency from each intended send time.
	Open Model = "open"
)

// Plan is everything one `authbench run` does.
type Plan struct {
	// Name labels the run; it becomes part of the run directory. Default "run".
	Name string `json:"name"`
	// Source is the scenario file the plan came from, if any.
	Source string `json:"source,omitempty"`
	// Targets are benchmarked one after the other, each for every iteration.
	Targets []Target `json:"targets"`
	// Load is shared by all targets.
	Load Load `json:"load"`
	// Client configures the HTTP client shared by all targets.
	Client Client `json:"client"`
	// SLO, when set, is evaluated per target after the run.
	SLO *SLO `json:"slo,omitempty"`
	// Observe lists components to sample while the load runs, so that
	// findings can name the component that saturates or throttles.
	Observe []Component `json:"observe,omitempty"`
	// SampleInterval is how often local components are read. Default 1s.
	SampleInterval Duration `json:"sample_interval,omitempty"`
	// Prometheus, when set, samples the Kubernetes containers among Observe
	// through a Prometheus HTTP API. Default nil: local sampling only.
	Prometheus *Prometheus `json:"prometheus,omitempty"`
	// Capacity, when set, sizes replicas for a planned throughput.
	// Default nil: resource recommendations only.
	Capacity *Capacity `json:"capacity,omitempty"`
	// Lab is the directory of the authbench lab the targets belong to, as
	// `lab scenario` writes it: the run observes that lab. Default "": the
	// running lab in the default directory, if the targets point at it.
	Lab string `json:"lab,omitempty"`
	// Execution, when set, runs the load from pods of a Kubernetes Job.
	// Default nil: from this process.
	Execution *Execution `json:"execution,omitempty"`
	// Publish, when set, sends the run to OpenSearch or Elasticsearch once
	// its directory is written (pkg/publish). Default nil: only
	// $AUTHBENCH_OPENSEARCH_URL does.
	Publish *Publish `json:"publish,omitempty"`
	// Given records which settings the user gave, and where; see Given.
	// Not recorded in run.json.
	Given Given `json:"-"`
	// completed is set by Complete.
	completed bool
}

// Prometheus says where and how to query container metrics, for
// components that are not processes on this machine.
type Prometheus struct {
	// URL is the server's base URL, e.g. https://thanos-querier.example:9091.
	// Required.
	URL string `json:"url"`
	// Token authenticates to it (e.g. command "oc whoami -t"). Default none.
	Token *auth.Spec `json:"token,omitempty"`
	// Insecure skips TLS verification. Default false: TLS is verified.
	Insecure bool `json:"insecure,omitempty"`
	// CACert is a PEM file of CAs to trust besides the system's, e.g. the
	// cluster's service CA in front of OpenShift's Thanos querier. Default
	// none: the system's CAs.
	CACert string `json:"cacert,omitempty"`
	// Step is the range-query resolution. Default 1s, widened so that no
	// query asks for more than 10,000 points.
	Step Duration `json:"step,omitempty"`
	// RateInterval fills {{.rateInterval}} in queries. Default "1m"; keep
	// it at least four scrape intervals.
	RateInterval string `json:"rate_interval,omitempty"`
	// Settle is how long after a window's end to wait before querying it,
	// so the last scrape has landed. Default 0.
	Settle Duration `json:"settle,omitempty"`
	// Profile lists the queries, kube-burner style. Default: the
	// Kubernetes container profile (cAdvisor metrics).
	Profile []Metric `json:"profile,omitempty"`
}

// Metric is one entry of a metrics profile: a PromQL query templated with
// {{.namespace}}, {{.pod}}, {{.container}}, {{.rateInterval}}, and the name
// saying what the query measures (see observe.MetricNames).
type Metric struct {
	Query      string `json:"query"`
	MetricName string `json:"metricName"`
}

// Capacity is a planned production load to size replicas for.
type Capacity struct {
	// TargetRPS is the throughput to serve, in requests per second. Required.
	TargetRPS float64 `json:"target_rps"`
	// Utilization is the fraction of a replica's measured throughput to
	// plan on, leaving headroom. Default 0.7.
	Utilization float64 `json:"utilization,omitempty"`
}

// Target is one endpoint under test.
type Target struct {
	// Name identifies the target in results and reports. Default: the URL's host.
	Name string `json:"name"`
	// URL is the absolute http(s) URL requested. Required.
	URL string `json:"url"`
	// Method is the HTTP method. Default "GET".
	Method string `json:"method"`
	// Headers are sent with every request. Authorization and Cookie values
	// are redacted when a Plan is serialised.
	Headers []Header `json:"headers,omitempty"`
	// Host overrides the Host header (hey's -host). Default: from URL.
	Host string `json:"host,omitempty"`
	// Body is the request body. It is not recorded; BodyBytes is.
	Body []byte `json:"-"`
	// BodyBytes is len(Body), recorded so reports can show request size.
	BodyBytes int `json:"body_bytes,omitempty"`
	// BodyFile is where Body came from, if a file (hey's -D).
	BodyFile string `json:"body_file,omitempty"`
	// Token, when set, supplies "Authorization: Bearer <token>" per request.
	Token *auth.Spec `json:"token,omitempty"`
	// Layers is the architecture as an ordered list of names from the
	// client inwards, e.g. [route, oauth-proxy, http-echo]. Only for reports.
	Layers []string `json:"layers,omitempty"`
	// Rungs are the entry points of each layer, for the ladder:
	// the same request sent to each layer from the inside out.
	Rungs []Rung `json:"rungs,omitempty"`
}

// Rung is one layer's own entry point.
type Rung struct {
	// Layer is the layer's name, as in Target.Layers.
	Layer string `json:"layer"`
	// URL is where that layer is reached directly.
	URL string `json:"url"`
	// Token overrides the target's token for this rung (nil: the target's).
	Token *auth.Spec `json:"token,omitempty"`
	// Headers are sent in addition to the target's headers.
	Headers []Header `json:"headers,omitempty"`
}

// Header is one request header. Its JSON form redacts secrets.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MarshalJSON redacts secret header values (redact.Header) so that a plan
// can be written to run.json safely.
func (h Header) MarshalJSON() ([]byte, error) {
	type raw Header
	return marshalJSON(raw{Name: h.Name, Value: redact.Header(h.Name, h.Value)})
}

// Load says how much load to send and how.
type Load struct {
	// Requests per iteration per target (hey's -n). Default 200 unless
	// Duration is set.
	Requests int64 `json:"requests,omitempty"`
	// Duration of each iteration (hey's -z); takes precedence over Requests.
	// Given together with Requests, Validate refuses the pair.
	// Default 0 (use Requests).
	Duration Duration `json:"duration,omitempty"`
	// Concurrency is the number of workers, and so of connections (hey's -c).
	// In the open model it bounds in-flight requests. Default 50.
	Concurrency int `json:"concurrency"`
	// Rate is the TOTAL requests per second across all workers. A positive
	// rate selects the open model. (hey's -q is per worker; ours is not.)
	// Default 0: closed loop.
	Rate float64 `json:"rate,omitempty"`
	// Stages, when set, is the open loop's schedule instead of one Rate:
	// holds and linear ramps on one timeline (--stages). Not with Rate,
	// Duration or Requests: Complete sets Duration to the stages' total.
	// Default none.
	Stages Stages `json:"stages,omitempty"`
	// Iterations of the whole load per target. Default 1.
	Iterations int `json:"iterations"`
	// WarmupRequests are sent before the first iteration and not recorded.
	// Default 0.
	WarmupRequests int64 `json:"warmup_requests,omitempty"`
	// WarmupDuration is a timed warm-up, not recorded. Default 0.
	WarmupDuration Duration `json:"warmup_duration,omitempty"`
	// Delay is the pause between iterations. Default 0.
	Delay Duration `json:"delay,omitempty"`
}

// Model reports which load model the load describes.
func (l Load) Model() Model {
	if l.Rate > 0 || len(l.Stages) > 0 {
		return Open
	}
	return Closed
}

// Client configures the HTTP client.
type Client struct {
	// Timeout per request (hey's -t). Default 20s.
	Timeout Duration `json:"timeout"`
	// HTTP2 enables HTTP/2 (hey's -h2). Default false.
	HTTP2 bool `json:"http2,omitempty"`
	// DisableKeepAlive opens a new connection per request. Default false.
	DisableKeepAlive bool `json:"disable_keepalive,omitempty"`
	// Insecure skips TLS verification. Default false: TLS is verified,
	// unlike hey.
	Insecure bool `json:"insecure,omitempty"`
	// CACert is a PEM file of CAs to trust besides the system's.
	CACert string `json:"cacert,omitempty"`
	// Cert and Key are a client certificate and key (PEM files).
	Cert string `json:"cert,omitempty"`
	Key  string `json:"key,omitempty"`
}

// SLO is a service-level objective, evaluated per target. Zero fields are
// not checked (a zero that was given is an error; see Given).
type SLO struct {
	// P50, P95 and P99 are latency maxima.
	P50 Duration `json:"p50,omitempty"`
	P95 Duration `json:"p95,omitempty"`
	P99 Duration `json:"p99,omitempty"`
	// SuccessRate is a minimum, as a fraction in (0,1].
	SuccessRate float64 `json:"success_rate,omitempty"`
	// Throughput is a minimum in requests per second.
	Throughput float64 `json:"throughput,omitempty"`
}

// Component is something to sample while the load runs: a lab
// component, a pid, a process name or a cgroup path, or a Kubernetes container
// for the Prometheus sampler.
type Component struct {
	// Name labels the component in results. Required.
	Name string `json:"name"`
	// Role says what the component does, e.g. "auth-proxy", "backend", "gateway".
	Role string `json:"role,omitempty"`
	// PID, Process or Cgroup select a local process; at most one is set.
	PID     int    `json:"pid,omitempty"`
	Process string `json:"process,omitempty"`
	Cgroup  string `json:"cgroup,omitempty"`
	// Namespace, Pod and Container select a container for Prometheus.
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Container string `json:"container,omitempty"`
}

// Duration is a time.Duration that reads and writes as "1.5s" in JSON and YAML.
type Duration time.Duration

// D returns the standard library duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration as a string such as "1.5s".
func (d Duration) MarshalJSON() ([]byte, error) { return marshalJSON(d.String()) }

// UnmarshalJSON accepts a string such as "1.5s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := unmarshalJSON(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"1.5s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
