package scenario

// The types in this file are the scenario file's schema: each field's yaml
// tag is its key, and its comment gives its default. Pointers mark values
// whose presence matters (a rate of 0 given explicitly is an error; an
// absent rate means a closed loop). Keys not listed here are errors, except
// top-level keys starting with "x-", which are ignored so that they can hold
// YAML anchors to reuse (x-token: &tok {env: TOKEN}).

// fileSpec is the whole document.
type fileSpec struct {
	// Name labels the runs of this scenario and becomes part of their
	// directory names. Default: the file's name without its extension.
	Name string `yaml:"name"`
	// Targets are benchmarked one after the other. Required: at least one.
	Targets []targetSpec `yaml:"targets"`
	// Load is shared by all targets. Default: 200 requests, 50 workers.
	Load loadSpec `yaml:"load"`
	// Client configures the HTTP client. Default: see clientSpec.
	Client clientSpec `yaml:"client"`
	// SLO is checked per target after the run. Default: none.
	SLO *sloSpec `yaml:"slo"`
	// Observe lists the components to sample during the load. Default: none.
	Observe []componentSpec `yaml:"observe"`
	// SampleInterval is how often local components are read, > 0.
	// Default 1s.
	SampleInterval *duration `yaml:"sample_interval"`
	// Prometheus samples the Kubernetes containers among observe through a
	// Prometheus HTTP API. Default: none (local sampling only).
	Prometheus *prometheusSpec `yaml:"prometheus"`
	// Capacity sizes replicas for a planned throughput. Default: none.
	Capacity *capacitySpec `yaml:"capacity"`
	// Lab is the directory of the authbench lab the targets run in
	// (`lab scenario` writes it), relative to the scenario file: the run
	// samples that lab's components. Default: the running lab in the
	// default directory, when the targets point at it.
	Lab string `yaml:"lab"`
	// Execution runs the load from pods of a Kubernetes Job. Default:
	// none (this process).
	Execution *executionSpec `yaml:"execution"`
	// Publish sends the run to OpenSearch or Elasticsearch at its end.
	// Default: none (unless $AUTHBENCH_OPENSEARCH_URL names a server).
	Publish *publishSpec `yaml:"publish"`
}

// targetSpec is one endpoint.
type targetSpec struct {
	// Name identifies the target in results. Default: the URL's host:port.
	// Names must be unique within the file.
	Name string `yaml:"name"`
	// URL is an absolute http(s) URL. Required.
	URL string `yaml:"url"`
	// Method is the HTTP method, upper-cased. Default "GET".
	Method string `yaml:"method"`
	// Headers are sent with every request: a mapping {Name: value}, or a
	// list of "Name: value" strings or {name, value} mappings (to repeat a
	// header). Default: none.
	Headers headerList `yaml:"headers"`
	// Body is the request body. Default: empty. Not with body_file.
	Body *string `yaml:"body"`
	// BodyFile is read for the body, relative to the scenario file.
	// Default: none. Not with body.
	BodyFile string `yaml:"body_file"`
	// Host overrides the Host header. Default: the URL's host.
	Host string `yaml:"host"`
	// Token supplies "Authorization: Bearer ..." per request. Default: none.
	Token *tokenSpec `yaml:"token"`
	// Layers names the architecture from the client inwards, e.g.
	// [route, oauth-proxy, http-echo]; reports only. Default: none.
	Layers []string `yaml:"layers"`
	// Rungs are the layers' own entry points for the ladder, in any order.
	// Default: none.
	Rungs []rungSpec `yaml:"rungs"`
}

// rungSpec is one layer's own entry point.
type rungSpec struct {
	// Layer is one of the target's layers. Required.
	Layer string `yaml:"layer"`
	// URL reaches the layer directly. Required.
	URL string `yaml:"url"`
	// Token overrides the target's token. Default: the target's.
	Token *tokenSpec `yaml:"token"`
	// Headers are sent besides the target's. Default: none.
	Headers headerList `yaml:"headers"`
}

// tokenSpec says where a token comes from: exactly one of env, file,
// command and oidc. A literal token is refused: the file would hold a
// secret.
type tokenSpec struct {
	// Env names an environment variable holding the token.
	Env string `yaml:"env"`
	// File holds the token, relative to the scenario file; it is re-read
	// when it changes.
	File string `yaml:"file"`
	// Command is run with `sh -c`; its trimmed stdout is the token.
	Command string `yaml:"command"`
	// Refresh re-runs Command on this interval. Default: run once.
	Refresh *duration `yaml:"refresh"`
	// OIDC gets the token from an OpenID Connect provider.
	OIDC *oidcSpec `yaml:"oidc"`
	// Pool hands out many tokens, one per request.
	Pool *poolSpec `yaml:"pool"`
}

// poolSpec is a pool of tokens, e.g. {file: tokens/pool} as `lab up
// --token-pool N` writes: a per-token cache then misses as under many users.
type poolSpec struct {
	// File holds one token per line, relative to the scenario file.
	File string `yaml:"file"`
	// Sources are token sources of any kind but pool. Default: none.
	Sources []*tokenSpec `yaml:"sources"`
	// Order is "round-robin" or "random". Default "round-robin".
	Order string `yaml:"order"`
}

// oidcSpec is an OAuth2 grant against an OIDC provider, e.g. Keycloak with
// issuer https://127.0.0.1:8443/realms/NAME.
type oidcSpec struct {
	// Issuer is the provider's issuer URL, for discovery. Required unless
	// token_url is given.
	Issuer string `yaml:"issuer"`
	// TokenURL skips discovery. Default: discovered from the issuer.
	TokenURL string `yaml:"token_url"`
	// Grant is "password" or "client_credentials". Default "password" when
	// username is set, else "client_credentials".
	Grant string `yaml:"grant"`
	// ClientID is required.
	ClientID string `yaml:"client_id"`
	// ClientSecretEnv or ClientSecretFile (relative to the scenario file)
	// hold the client secret. Default: none (a public client); required
	// for client_credentials.
	ClientSecretEnv  string `yaml:"client_secret_env"`
	ClientSecretFile string `yaml:"client_secret_file"`
	// Username, with PasswordEnv or PasswordFile, is for the password grant.
	Username     string `yaml:"username"`
	PasswordEnv  string `yaml:"password_env"`
	PasswordFile string `yaml:"password_file"`
	// Scopes requested. Default [openid].
	Scopes []string `yaml:"scopes"`
	// CACert is a PEM file to trust for the provider, relative to the
	// scenario file. Default: the system's CAs only.
	CACert string `yaml:"cacert"`
	// Insecure skips verifying the provider's certificate. Default false.
	Insecure bool `yaml:"insecure"`
	// RefreshBefore renews tokens this long before they expire, capped at
	// half their lifetime. Default 30s.
	RefreshBefore *duration `yaml:"refresh_before"`
	// UseIDToken sends the ID token instead of the access token (the
	// Kubernetes API server's OIDC authenticator wants it). Default false.
	UseIDToken bool `yaml:"use_id_token"`
}

// loadSpec says how much load to send.
type loadSpec struct {
	// Requests per iteration per target, at least 1. Default 200 unless
	// duration is set. Not with duration.
	Requests *int64 `yaml:"requests"`
	// Duration of each iteration, instead of requests. Default: none.
	Duration *duration `yaml:"duration"`
	// Concurrency is the number of workers (connections), at least 1.
	// Default 50.
	Concurrency *int `yaml:"concurrency"`
	// Rate is the total requests per second; it selects the open model and
	// must be > 0. Default: none (closed loop).
	Rate *float64 `yaml:"rate"`
	// Stages is the open loop's schedule instead of one rate: holds and
	// linear ramps, "30s:100,60s:100-500,30s:500" or a list of such
	// stages or of {duration, rate} and {duration, from, to}. Not with
	// rate, duration or requests. Default: none.
	Stages *stageList `yaml:"stages"`
	// Iterations of the load per target, at least 1. Default 1.
	Iterations *int `yaml:"iterations"`
	// Warmup is a count of requests (100) or a duration ("10s") sent before
	// the first iteration and not recorded. Default: none.
	Warmup *warmup `yaml:"warmup"`
	// Delay is the pause between iterations. Default 0.
	Delay *duration `yaml:"delay"`
}

// clientSpec configures the HTTP client.
type clientSpec struct {
	// Timeout per request, > 0. Default 20s.
	Timeout *duration `yaml:"timeout"`
	// HTTP2 enables HTTP/2. Default false.
	HTTP2 bool `yaml:"http2"`
	// DisableKeepalive opens a connection per request. Default false.
	DisableKeepalive bool `yaml:"disable_keepalive"`
	// Insecure skips TLS verification. Default false.
	Insecure bool `yaml:"insecure"`
	// CACert is a PEM file of extra CAs, relative to the scenario file.
	// Default: the system's CAs only.
	CACert string `yaml:"cacert"`
	// Cert and Key are a client certificate and its key (PEM files,
	// relative to the scenario file), given together. Default: none.
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
}

// sloSpec holds objectives; absent ones are not checked.
type sloSpec struct {
	// P50, P95 and P99 are latency maxima, > 0 and in increasing order.
	P50 *duration `yaml:"p50"`
	P95 *duration `yaml:"p95"`
	P99 *duration `yaml:"p99"`
	// SuccessRate is a minimum: "99.9%" or 0.999, in (0, 1].
	SuccessRate *fraction `yaml:"success_rate"`
	// Throughput is a minimum in requests per second, > 0.
	Throughput *float64 `yaml:"throughput"`
}

// componentSpec is something to sample: a local process by exactly one of
// pid, process and cgroup, or a Kubernetes container by namespace, pod
// and/or container.
type componentSpec struct {
	// Name labels the component. Required; unique within the file.
	Name string `yaml:"name"`
	// Role says what it does: auth-proxy, backend, gateway... Default: none.
	Role      string `yaml:"role"`
	PID       *int   `yaml:"pid"`
	Process   string `yaml:"process"`
	Cgroup    string `yaml:"cgroup"`
	Namespace string `yaml:"namespace"`
	Pod       string `yaml:"pod"`
	Container string `yaml:"container"`
}

// prometheusSpec says where and how to query container metrics.
type prometheusSpec struct {
	// URL is the server's base URL, e.g. https://thanos-querier.example:9091.
	// Required.
	URL string `yaml:"url"`
	// Token authenticates to it, e.g. {command: "oc whoami -t"}. Default: none.
	Token *tokenSpec `yaml:"token"`
	// Insecure skips TLS verification. Default false.
	Insecure bool `yaml:"insecure"`
	// CACert is a PEM file of CAs to trust besides the system's, relative
	// to the scenario file. Default: the system's CAs.
	CACert string `yaml:"cacert"`
	// Step is the range-query resolution, > 0. Default 1s.
	Step *duration `yaml:"step"`
	// RateInterval fills {{.rateInterval}} in queries, as a Prometheus
	// duration ("1m", "2m30s", "1d"). Default "1m".
	RateInterval string `yaml:"rate_interval"`
	// Settle waits this long after a window before querying it. Default 0.
	Settle *duration `yaml:"settle"`
	// Profile lists the queries, as in a kube-burner metrics profile.
	// Default: the Kubernetes container profile.
	Profile []metricSpec `yaml:"profile"`
}

// metricSpec is one query of a metrics profile. The key metricName is
// spelt as in kube-burner, so that its profiles can be pasted in.
type metricSpec struct {
	// Query is PromQL templated with {{.namespace}}, {{.pod}},
	// {{.container}} and {{.rateInterval}}. Required.
	Query string `yaml:"query"`
	// MetricName says what the query measures. Required.
	MetricName string `yaml:"metricName"`
}

// capacitySpec is a planned production load to size replicas for.
type capacitySpec struct {
	// TargetRPS is the throughput to serve, > 0. Required.
	TargetRPS *float64 `yaml:"target_rps"`
	// Utilization is the share of a replica's measured throughput to plan
	// on: 0.7 or "70%", in (0, 1]. Default 0.7.
	Utilization *fraction `yaml:"utilization"`
}

// publishSpec is where runs are published; the AUTHBENCH_OPENSEARCH_*
// variables fill what it leaves out. No key holds a secret.
type publishSpec struct {
	// URL is the server, http(s)://host:port, without credentials.
	// Default $AUTHBENCH_OPENSEARCH_URL.
	URL string `yaml:"url"`
	// Index is written to. Default $AUTHBENCH_OPENSEARCH_INDEX, else
	// "authbench-runs".
	Index string `yaml:"index"`
	// User authenticates with basic auth. Default $AUTHBENCH_OPENSEARCH_USER.
	User string `yaml:"user"`
	// PasswordFile holds User's password, relative to the scenario file.
	// Default: $AUTHBENCH_OPENSEARCH_PASSWORD.
	PasswordFile string `yaml:"password_file"`
	// Token is a bearer token source, instead of user. Default: none.
	Token *tokenSpec `yaml:"token"`
	// CACert is a PEM file of CAs to trust, relative to the scenario file.
	// Default: the system's. TLS is always verified.
	CACert string `yaml:"cacert"`
	// Timeout bounds each request, > 0. Default 30s.
	Timeout *duration `yaml:"timeout"`
}
