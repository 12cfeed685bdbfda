package observe

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// GatewayReading is one reading of a gateway's cumulative metrics. Only
// the difference of two readings of the same gateway means anything
// (GatewayWindow).
type GatewayReading struct {
	Time time.Time
	// Kind is results.GatewayEnvoy or results.GatewayHAProxy.
	Kind string
	// ByClass counts downstream responses by status class ("2xx").
	ByClass map[string]float64
	// ExtAuthz is nil for a gateway without the ext_authz filter.
	ExtAuthz *ExtAuthzTally
	// Authz, Upstream and Downstream time the authz calls, the backend's
	// requests and whole requests.
	Authz, Upstream, Downstream Timing
}

// ExtAuthzTally holds Envoy's cumulative ext_authz counters.
type ExtAuthzTally struct {
	OK, Denied, Error, FailureModeAllowed, Timeouts float64
}

// Timing is one timed path in a reading: a cumulative histogram (Envoy),
// or a request counter and a running mean (HAProxy).
type Timing struct {
	Name string
	Hist *Histogram
	// Count is the cumulative requests when there is no histogram.
	Count float64
	// MeanMs is a gauge: the gateway's own running mean.
	MeanMs float64
}

// EnvoyNames say which of Envoy's stats are the gateway's. Empty fields
// are found in the stats: the HTTP connection manager with ext_authz
// counters, the cluster carrying the cluster-level ext_authz counters
// (the route's), and the cluster whose name holds "authz".
type EnvoyNames struct {
	Prefix          string // http.<Prefix>.*: the listener's stat_prefix
	AuthzCluster    string // the ext_authz http_service's cluster
	UpstreamCluster string // the route's cluster
}

// Envoy's Prometheus names and labels read here.
const (
	envoyPrefixLabel  = "envoy_http_conn_manager_prefix"
	envoyClusterLabel = "envoy_cluster_name"
	envoyClassLabel   = "envoy_response_code_class"
	envoyAuthzPrefix  = "envoy_http_ext_authz_"
	envoyRqXX         = "envoy_http_downstream_rq_xx"
	envoyDownTime     = "envoy_http_downstream_rq_time"
	envoyClusterTime  = "envoy_cluster_upstream_rq_time"
	envoyClusterAuthz = "envoy_cluster_ext_authz_ok"
	envoyTimeouts     = "envoy_cluster_upstream_rq_timeout"
)

// ParseEnvoy reads Envoy's admin /stats/prometheus into a reading.
func ParseEnvoy(r io.Reader, names EnvoyNames) (GatewayReading, error) {
	samples, err := parseExposition(r, func(n string) bool {
		return strings.HasPrefix(n, "envoy_http_") || strings.HasPrefix(n, "envoy_cluster_")
	})
	if err != nil {
		return GatewayReading{}, err
	}
	names = names.resolve(samples)
	if names.Prefix == "" {
		return GatewayReading{}, errors.New("no HTTP connection manager with ext_authz counters")
	}
	g := GatewayReading{Kind: results.GatewayEnvoy, ByClass: map[string]float64{}, ExtAuthz: &ExtAuthzTally{}}
	g.Authz.Name, g.Upstream.Name, g.Downstream.Name = names.AuthzCluster, names.UpstreamCluster, names.Prefix
	hists := map[string]*histBuilder{"authz": {}, "upstream": {}, "downstream": {}}
	for _, s := range samples {
		if math.IsNaN(s.value) || math.IsInf(s.value, 0) {
			continue // Envoy writes none; a NaN would poison every difference
		}
		if err := names.take(&g, hists, s); err != nil {
			return GatewayReading{}, fmt.Errorf("metric %s: %w", s.name, err)
		}
	}
	for key, b := range hists {
		if b.buckets == nil {
			continue
		}
		h, err := b.histogram()
		if err != nil {
			return GatewayReading{}, fmt.Errorf("%s request time: %w", key, err)
		}
		map[string]*Timing{"authz": &g.Authz, "upstream": &g.Upstream, "downstream": &g.Downstream}[key].Hist = &h
	}
	return g, nil
}

// take files one sample of the gateway's under its place in g.
func (n EnvoyNames) take(g *GatewayReading, hists map[string]*histBuilder, s promSample) error {
	prefix, cluster := s.labels[envoyPrefixLabel], s.labels[envoyClusterLabel]
	switch {
	case prefix == n.Prefix && strings.HasPrefix(s.name, envoyAuthzPrefix):
		a := g.ExtAuthz
		switch strings.TrimPrefix(s.name, envoyAuthzPrefix) {
		case "ok":
			a.OK = s.value
		case "denied":
			a.Denied = s.value
		case "error":
			a.Error = s.value
		case "failure_mode_allowed":
			a.FailureModeAllowed = s.value
		}
	case prefix == n.Prefix && s.name == envoyRqXX:
		if c := s.labels[envoyClassLabel]; len(c) == 1 && c[0] >= '1' && c[0] <= '5' {
			g.ByClass[c+"xx"] = s.value
		}
	case cluster != "" && cluster == n.AuthzCluster && s.name == envoyTimeouts:
		g.ExtAuthz.Timeouts = s.value
	}
	fam, suffix := histSuffix(s.name)
	switch {
	case suffix == "":
	case fam == envoyDownTime && prefix == n.Prefix:
		return hists["downstream"].add(s, suffix)
	case fam == envoyClusterTime && cluster != "" && cluster == n.AuthzCluster:
		return hists["authz"].add(s, suffix)
	case fam == envoyClusterTime && cluster != "" && cluster == n.UpstreamCluster:
		return hists["upstream"].add(s, suffix)
	}
	return nil
}

// resolve fills the names left empty from what the stats hold.
func (n EnvoyNames) resolve(samples []promSample) EnvoyNames {
	for _, s := range samples {
		if p := s.labels[envoyPrefixLabel]; n.Prefix == "" && p != "" && p != "admin" && strings.HasPrefix(s.name, envoyAuthzPrefix) {
			n.Prefix = p
		}
		c := s.labels[envoyClusterLabel]
		if n.UpstreamCluster == "" && s.name == envoyClusterAuthz {
			n.UpstreamCluster = c
		}
		if n.AuthzCluster == "" && strings.Contains(c, "authz") {
			n.AuthzCluster = c
		}
	}
	return n
}
