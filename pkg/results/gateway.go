package results

// Kinds of gateway whose own account a Gateway holds.
const (
	GatewayEnvoy   = "envoy"
	GatewayHAProxy = "haproxy"
)

// Gateway is the gateway's own account of one result's window, read from
// its metrics endpoint (Envoy's admin /stats/prometheus, HAProxy's
// Prometheus exporter) just before and just after the phase: what it
// answered, what its ext_authz filter decided and where its time went. It
// is an account independent of the client's, so the two can be set side
// by side; requests in flight at the window's edges make them differ by
// at most the run's concurrency.
type Gateway struct {
	// Kind is GatewayEnvoy or GatewayHAProxy.
	Kind string `json:"kind"`
	// Component is the lab component read (e.g. "gateway-3x"); empty
	// when the endpoint was given by hand.
	Component string `json:"component,omitempty"`
	// Seconds is the time between the two readings.
	Seconds float64 `json:"seconds"`
	// Requests are the downstream requests the gateway answered in the
	// window; ByClass splits them by status class ("2xx": n).
	Requests int64            `json:"requests"`
	ByClass  map[string]int64 `json:"by_class,omitempty"`
	// ExtAuthz is the ext_authz filter's decisions (Envoy only).
	ExtAuthz *ExtAuthzCounts `json:"ext_authz,omitempty"`
	// Authz is the time of the gateway's calls to the ext_authz service,
	// Upstream of its requests to the route's backend, Downstream of
	// whole requests, each as the gateway measured it.
	Authz      *GatewayTiming `json:"authz,omitempty"`
	Upstream   *GatewayTiming `json:"upstream,omitempty"`
	Downstream *GatewayTiming `json:"downstream,omitempty"`
}

// ExtAuthzCounts are Envoy's ext_authz counters over a window
// (http.<prefix>.ext_authz.*).
type ExtAuthzCounts struct {
	// OK: the authz service allowed the request.
	OK int64 `json:"ok"`
	// Denied: the authz service answered, and not 200; its status went
	// back to the client.
	Denied int64 `json:"denied"`
	// Error: the call failed or timed out (or the service answered 5xx);
	// Envoy answered with its status_on_error (403 by default) unless
	// the failure mode allows.
	Error int64 `json:"error"`
	// FailureModeAllowed: of the errors, those let through to the backend
	// because failure_mode_allow is set.
	FailureModeAllowed int64 `json:"failure_mode_allowed"`
	// Timeouts are the ext_authz cluster's requests that outlived the
	// filter's timeout (cluster.<authz>.upstream_rq_timeout).
	Timeouts int64 `json:"timeouts"`
}

// GatewayTiming is a request time as the gateway measured it over a
// window. Envoy's histograms are cumulative with fixed buckets: the window's
// distribution is the difference of two readings, and its percentiles
// are known only to their bucket, so each is given as the bucket's
// bounds. HAProxy gives only a running mean (MeanMs, of its last 1,024
// requests), no distribution.
type GatewayTiming struct {
	// Name is the cluster (Envoy) or backend (HAProxy) timed.
	Name string `json:"name"`
	// Count is the requests timed in the window; MeanMs their mean.
	Count  int64   `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	// P50, P90 and P99 are the buckets holding each percentile.
	P50 *Bucket `json:"p50,omitempty"`
	P90 *Bucket `json:"p90,omitempty"`
	P99 *Bucket `json:"p99,omitempty"`
}

// Bucket is one histogram bucket: the value lies in (LowMs, HighMs]; Open
// means above LowMs, in the histogram's last, unbounded bucket (HighMs 0).
type Bucket struct {
	LowMs  float64 `json:"low_ms"`
	HighMs float64 `json:"high_ms,omitempty"`
	Open   bool    `json:"open,omitempty"`
}
