package observe

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// GatewayReader reads a gateway's cumulative metrics. Read it just before
// and just after a window and pass both to GatewayWindow.
type GatewayReader interface {
	// Component names the gateway read ("" when unknown).
	Component() string
	// Read returns the gateway's counters now.
	Read(ctx context.Context) (GatewayReading, error)
}

// envoyStatsFilter keeps Envoy's answer to the families ParseEnvoy reads
// (raw stat names: http.<prefix>.downstream_rq_2xx, cluster.<name>.*).
const envoyStatsFilter = "(ext_authz|upstream_rq_time|downstream_rq_time|downstream_rq_[1-5]xx|upstream_rq_timeout)"

// maxGatewayBody bounds what is read of one metrics answer.
const maxGatewayBody = 16 << 20

// EnvoyAdmin reads Envoy's admin /stats/prometheus. Envoy's histograms
// are merged at its stats flush; with `stats_flush_on_admin: true` every
// admin read starts one, which the next read sees, so Read asks twice,
// FlushWait apart, and keeps the second answer. Without it, the
// histograms lag by up to the flush interval (5 s by default); the
// counters never lag.
type EnvoyAdmin struct {
	// URL is the admin interface, e.g. http://127.0.0.1:9901.
	URL string
	// Name is the lab component, recorded in results. Default "".
	Name string
	// Names say which stats are the gateway's. Default: found.
	Names EnvoyNames
	// FlushWait is the pause between the two reads. Default 50 ms.
	FlushWait time.Duration
	// Client sends the requests. Default: no redirects, 10 s timeout.
	Client *http.Client
}

// Component is the lab component's name.
func (e *EnvoyAdmin) Component() string { return e.Name }

// Read reads Envoy's stats.
func (e *EnvoyAdmin) Read(ctx context.Context) (GatewayReading, error) {
	u := strings.TrimSuffix(e.URL, "/") + "/stats/prometheus?filter=" + envoyStatsFilter
	if _, err := getMetrics(ctx, e.Client, u, discardBody); err != nil {
		return GatewayReading{}, fmt.Errorf("reading Envoy's stats: %w", err)
	}
	wait := e.FlushWait
	if wait <= 0 {
		wait = 50 * time.Millisecond
	}
	select {
	case <-ctx.Done():
		return GatewayReading{}, fmt.Errorf("reading Envoy's stats: %w", ctx.Err())
	case <-time.After(wait):
	}
	var g GatewayReading
	at, err := getMetrics(ctx, e.Client, u, func(r io.Reader) error {
		var err error
		g, err = ParseEnvoy(r, e.Names)
		return err
	})
	if err != nil {
		return GatewayReading{}, fmt.Errorf("reading Envoy's stats: %w", err)
	}
	g.Time = at
	return g, nil
}

// HAProxyMetrics reads HAProxy's Prometheus exporter.
type HAProxyMetrics struct {
	// URL is the exporter's page, e.g. http://127.0.0.1:8404/metrics.
	URL string
	// Name is the lab component, recorded in results. Default "".
	Name string
	// Names say which frontend and backend are the router's. Default: found.
	Names HAProxyNames
	// Client sends the request. Default: no redirects, 10 s timeout.
	Client *http.Client
}

// Component is the lab component's name.
func (h *HAProxyMetrics) Component() string { return h.Name }

// Read reads the exporter once.
func (h *HAProxyMetrics) Read(ctx context.Context) (GatewayReading, error) {
	var g GatewayReading
	at, err := getMetrics(ctx, h.Client, h.URL, func(r io.Reader) error {
		var err error
		g, err = ParseHAProxy(r, h.Names)
		return err
	})
	if err != nil {
		return GatewayReading{}, fmt.Errorf("reading HAProxy's metrics: %w", err)
	}
	g.Time = at
	return g, nil
}

// getMetrics GETs u and hands its body to parse; the time is when the
// answer came.
func getMetrics(ctx context.Context, c *http.Client, u string, parse func(io.Reader) error) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, metricsRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return time.Time{}, err
	}
	if c == nil {
		c = metricsClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return time.Time{}, err
	}
	defer resp.Body.Close()
	at := time.Now()
	if resp.StatusCode != http.StatusOK {
		return at, fmt.Errorf("%s answered %s", req.URL.Redacted(), resp.Status)
	}
	return at, parse(io.LimitReader(resp.Body, maxGatewayBody))
}

// discardBody reads a body to its end, so the connection can be reused.
func discardBody(r io.Reader) error {
	_, err := io.Copy(io.Discard, r)
	return err
}

// GatewayWindow turns two readings into a result's gateway section. It
// returns nil when a reading is missing (a zero Time) or they are of
// different gateways.
func GatewayWindow(component string, before, after GatewayReading) *results.Gateway {
	if before.Time.IsZero() || after.Time.IsZero() || before.Kind != after.Kind {
		return nil
	}
	g := &results.Gateway{Kind: after.Kind, Component: component, Seconds: after.Time.Sub(before.Time).Seconds()}
	for c, v := range after.ByClass {
		if d := counterDelta(v, before.ByClass[c]); d > 0 {
			if g.ByClass == nil {
				g.ByClass = map[string]int64{}
			}
			g.ByClass[c] = d
			g.Requests += d
		}
	}
	if a, b := after.ExtAuthz, before.ExtAuthz; a != nil && b != nil {
		g.ExtAuthz = &results.ExtAuthzCounts{
			OK: counterDelta(a.OK, b.OK), Denied: counterDelta(a.Denied, b.Denied), Error: counterDelta(a.Error, b.Error),
			FailureModeAllowed: counterDelta(a.FailureModeAllowed, b.FailureModeAllowed), Timeouts: counterDelta(a.Timeouts, b.Timeouts),
		}
	}
	g.Authz = timingWindow(before.Authz, after.Authz)
	g.Upstream = timingWindow(before.Upstream, after.Upstream)
	g.Downstream = timingWindow(before.Downstream, after.Downstream)
	return g
}

// counterDelta is a counter's increase; one that went down was reset
// (the gateway restarted), and its value is then the increase since.
func counterDelta(after, before float64) int64 {
	if after < before {
		return int64(math.Round(after))
	}
	return int64(math.Round(after - before))
}

// GatewayReaders are the gateways a run can read, by the host:port of the
// target URL they serve (a lab stack's outer URL).
type GatewayReaders map[string]GatewayReader

// For is the gateway in front of target URL u; nil when none is known.
func (g GatewayReaders) For(u string) GatewayReader {
	if len(g) == 0 {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil {
		return nil
	}
	return g[p.Host]
}
