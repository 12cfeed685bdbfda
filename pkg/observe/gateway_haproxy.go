package observe

import (
	"errors"
	"io"
	"math"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// HAProxyNames say which frontend and backend are the router's. Empty
// fields are the frontend and the backend that served the most requests
// (the exporter's own frontend serves one per scrape).
type HAProxyNames struct {
	Frontend string
	Backend  string
}

// HAProxy's exporter names read here.
const (
	haproxyFrontRequests = "haproxy_frontend_http_requests_total"
	haproxyFrontClasses  = "haproxy_frontend_http_responses_total"
	haproxyBackRequests  = "haproxy_backend_http_requests_total"
	haproxyBackResponse  = "haproxy_backend_response_time_average_seconds"
	haproxyBackTotal     = "haproxy_backend_total_time_average_seconds"
)

// ParseHAProxy reads HAProxy's Prometheus exporter (/metrics) into a
// reading. HAProxy 2.8 keeps no latency histograms: its times are running
// means of the last 1,024 requests, gauges read at the window's end.
func ParseHAProxy(r io.Reader, names HAProxyNames) (GatewayReading, error) {
	samples, err := parseExposition(r, func(n string) bool {
		return strings.HasPrefix(n, "haproxy_frontend_http_") || strings.HasPrefix(n, "haproxy_backend_")
	})
	if err != nil {
		return GatewayReading{}, err
	}
	if names.Frontend == "" {
		names.Frontend = busiest(samples, haproxyFrontRequests)
	}
	if names.Backend == "" {
		names.Backend = busiest(samples, haproxyBackRequests)
	}
	if names.Frontend == "" {
		return GatewayReading{}, errors.New("no HTTP frontend in the exporter's metrics")
	}
	g := GatewayReading{Kind: results.GatewayHAProxy, ByClass: map[string]float64{}}
	g.Upstream.Name, g.Downstream.Name = names.Backend, names.Frontend
	for _, s := range samples {
		if math.IsNaN(s.value) || math.IsInf(s.value, 0) {
			continue
		}
		proxy := s.labels["proxy"]
		switch {
		case proxy == names.Frontend && s.name == haproxyFrontRequests:
			g.Downstream.Count = s.value
		case proxy == names.Frontend && s.name == haproxyFrontClasses:
			if c := s.labels["code"]; len(c) == 3 && c[1:] == "xx" && c[0] >= '1' && c[0] <= '5' {
				g.ByClass[c] = s.value
			}
		case proxy == names.Backend && s.name == haproxyBackRequests:
			g.Upstream.Count = s.value
		case proxy == names.Backend && s.name == haproxyBackResponse:
			g.Upstream.MeanMs = s.value * 1000
		case proxy == names.Backend && s.name == haproxyBackTotal:
			g.Downstream.MeanMs = s.value * 1000
		}
	}
	return g, nil
}

// busiest is the proxy with the largest value of metric.
func busiest(samples []promSample, metric string) string {
	best, most := "", -1.0
	for _, s := range samples {
		if s.name == metric && s.value > most {
			best, most = s.labels["proxy"], s.value
		}
	}
	return best
}
