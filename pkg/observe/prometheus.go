package observe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/authbench/authbench/internal/httpclient"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// Defaults of the Prometheus sampler.
const (
	DefaultStep         = time.Second
	DefaultRateInterval = "1m"
	// DefaultMargin is Prometheus's default lookback: a range query finds
	// a sample up to this long before each step, so raw reads of counters
	// look as far either side of the window.
	DefaultMargin = 5 * time.Minute
	// maxPoints keeps a range query under Prometheus's 11,000-point limit.
	maxPoints = 10000
)

// PromComponent is a Kubernetes container (or any scrape target) to query.
type PromComponent struct {
	Name, Role                string
	Namespace, Pod, Container string
}

// PromComponentsFromPlan returns the plan's components that name a
// Kubernetes container (a namespace or a pod).
func PromComponentsFromPlan(cs []plan.Component) []PromComponent {
	var out []PromComponent
	for _, c := range cs {
		if c.Namespace != "" || c.Pod != "" {
			out = append(out, PromComponent{Name: c.Name, Role: c.Role, Namespace: c.Namespace, Pod: c.Pod, Container: c.Container})
		}
	}
	return out
}

// PromOptions configure a PrometheusSampler.
type PromOptions struct {
	// URL is the server's base URL. Required.
	URL string
	// Profile is the list of queries. Default DefaultProfile().
	Profile []plan.Metric
	// Step is the query resolution. Default DefaultStep, widened to keep
	// each query under 10,000 points.
	Step time.Duration
	// RateInterval fills {{.rateInterval}}. Default DefaultRateInterval.
	RateInterval string
	// Settle delays a query until this long after the window's end, so the
	// last scrape has landed. Default 0.
	Settle time.Duration
	// Margin is how far beyond a window's edges counters' raw samples are
	// read, to find the scrapes bracketing them. Default DefaultMargin.
	Margin time.Duration
	// RangeOnly reads counters through range queries (and a rate of CPU
	// through its rate()) instead of as raw samples; see
	// prometheus_counters.go for why raw is the default. Default false.
	RangeOnly bool
	// Token, when set, is sent as a bearer token.
	Token auth.TokenSource
	// Client sends the queries. Default: a client with a 30 s timeout.
	Client *http.Client
}

// PrometheusSampler runs a metrics profile's queries per window.
type PrometheusSampler struct {
	o        PromOptions
	base     *url.URL
	comps    []Component
	queries  [][]plan.Metric  // component -> rendered profile
	counters [][]rawCounter   // component -> counters to read raw
	now      func() time.Time // the clock, replaced in tests
}

// rawCounter is a counter behind a profile entry, read as raw samples.
type rawCounter struct {
	selector, fills string
}

// NewPrometheus renders the profile for every component, failing on a bad
// URL, an unknown metric name or a template that does not render.
func NewPrometheus(o PromOptions, comps []PromComponent) (*PrometheusSampler, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("prometheus url %q: want an absolute http(s) URL", o.URL)
	}
	if len(o.Profile) == 0 {
		o.Profile = DefaultProfile()
	}
	if o.Step <= 0 {
		o.Step = DefaultStep
	}
	if o.RateInterval == "" {
		o.RateInterval = DefaultRateInterval
	}
	if o.Margin <= 0 {
		o.Margin = DefaultMargin
	}
	if o.Client == nil {
		o.Client = httpclient.New(nil, promTimeout)
	}
	s := &PrometheusSampler{o: o, base: u, now: time.Now}
	for _, c := range comps {
		qs, err := render(o.Profile, c, o.RateInterval)
		if err != nil {
			return nil, fmt.Errorf("prometheus profile for component %q: %w", c.Name, err)
		}
		s.comps = append(s.comps, Component{Name: c.Name, Role: c.Role})
		s.queries = append(s.queries, qs)
		s.counters = append(s.counters, s.rawCounters(qs))
	}
	return s, nil
}

// NewPrometheusFromPlan builds the sampler a plan asks for, with its token
// source and TLS settings, over the plan's Kubernetes components. The
// token source refreshes itself (a command's refresh, a file re-read when
// rotated, an OIDC grant renewed) and is asked for the token at every
// query; the token goes only into the Authorization header.
func NewPrometheusFromPlan(ctx context.Context, p *plan.Prometheus, comps []plan.Component) (*PrometheusSampler, error) {
	o := PromOptions{URL: p.URL, Profile: p.Profile, Step: p.Step.D(), RateInterval: p.RateInterval, Settle: p.Settle.D()}
	if p.Token != nil {
		ts, err := auth.New(ctx, p.Token)
		if err != nil {
			return nil, fmt.Errorf("prometheus token: %w", err)
		}
		o.Token = ts
	}
	c, err := promClient(p)
	if err != nil {
		return nil, err
	}
	o.Client = c
	return NewPrometheus(o, PromComponentsFromPlan(comps))
}

// rawCounters lists the counters of a rendered profile that are read raw,
// one per metric filled, in profile order.
func (s *PrometheusSampler) rawCounters(qs []plan.Metric) []rawCounter {
	if s.o.RangeOnly {
		return nil
	}
	var out []rawCounter
	for _, m := range qs {
		sel, fills := counterSelector(m.MetricName, m.Query)
		if sel != "" && !slices.ContainsFunc(out, func(c rawCounter) bool { return c.fills == fills }) {
			out = append(out, rawCounter{sel, fills})
		}
	}
	return out
}

func render(profile []plan.Metric, c PromComponent, rate string) ([]plan.Metric, error) {
	// The component's values sit inside the templates' quoted label
	// values: escaped, they cannot close the string and add PromQL.
	data := map[string]string{"namespace": EscapeLabelValue(c.Namespace), "pod": EscapeLabelValue(c.Pod),
		"container": EscapeLabelValue(c.Container), "name": EscapeLabelValue(c.Name), "rateInterval": rate}
	out := make([]plan.Metric, len(profile))
	for i, m := range profile {
		if !slices.Contains(MetricNames, m.MetricName) {
			return nil, fmt.Errorf("entry %d: metricName %q: want one of %s", i+1, m.MetricName, strings.Join(MetricNames, ", "))
		}
		t, err := template.New(m.MetricName).Option("missingkey=error").Parse(m.Query)
		if err != nil {
			return nil, fmt.Errorf("entry %d (%s): %w", i+1, m.MetricName, err)
		}
		var b strings.Builder
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("entry %d (%s): %w", i+1, m.MetricName, err)
		}
		out[i] = plan.Metric{MetricName: m.MetricName, Query: b.String()}
	}
	return out, nil
}

// Source returns SourcePrometheus.
func (s *PrometheusSampler) Source() string { return SourcePrometheus }

// Components lists the queried components.
func (s *PrometheusSampler) Components() []Component { return s.comps }

// Queries returns the rendered queries of component i, for logs and tests.
func (s *PrometheusSampler) Queries(i int) []plan.Metric { return s.queries[i] }

// QueryRange returns every component's points over [start, end]: at the
// counters' scrape times when their raw samples could be read, else on the
// range queries' step grid.
func (s *PrometheusSampler) QueryRange(ctx context.Context, start, end time.Time) ([][]Point, error) {
	if wait := time.Until(end.Add(s.o.Settle)); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	step := s.o.Step
	if span := end.Sub(start); span/step > maxPoints {
		step = (span/maxPoints + time.Second).Truncate(time.Second)
	}
	out := make([][]Point, len(s.comps))
	var errs []error
	for i := range s.comps {
		raw, rawErrs := s.readCounters(ctx, i, start, end)
		gridStart := start.Truncate(step)
		values := map[string]map[int64]float64{}
		for _, m := range s.queries[i] {
			if _, ok := raw[fills(m.MetricName)]; ok {
				continue
			}
			v, err := s.query(ctx, m.Query, gridStart, end, step)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s %s: %w", s.comps[i].Name, m.MetricName, errors.Join(append(rawErrs[fills(m.MetricName)], err)...)))
				continue
			}
			values[m.MetricName] = v
		}
		out[i] = assemble(values, raw, gridStart, end, step)
	}
	return out, errors.Join(errs...)
}

// readCounters reads component i's raw counters over [start, end]. One
// that fails or has no samples is left out, for its range query to fill;
// the errors are kept for when that fails too.
func (s *PrometheusSampler) readCounters(ctx context.Context, i int, start, end time.Time) (map[string][]sample, map[string][]error) {
	raw := map[string][]sample{}
	errs := map[string][]error{}
	for _, c := range s.counters[i] {
		ss, err := s.counterSamples(ctx, c.selector, start, end)
		for err == nil && s.stale(ss, end) && pause(ctx, s.o.Settle/4) {
			ss, err = s.counterSamples(ctx, c.selector, start, end)
		}
		switch {
		case err != nil:
			errs[c.fills] = append(errs[c.fills], fmt.Errorf("raw samples of %s: %w", c.selector, err))
		case len(ss) > 0:
			raw[c.fills] = ss
		}
	}
	return raw, errs
}

// lateSettles bounds the wait for a late counter, in Settles past the end.
const lateSettles = 3

// stale says a counter's newest sample is not past the window's end, the
// counter was rising into it, and a late sample may still come. cAdvisor
// refreshes on its own clock, later on a busy host; without a sample after
// the end, the window's last seconds are extrapolated from before them. A
// counter flat at its last sample is not waited for: cAdvisor refreshes an
// idle container less often (up to 15 s, jittered to twice that), and flat
// is what the wait would confirm.
func (s *PrometheusSampler) stale(ss []sample, end time.Time) bool {
	n := len(ss)
	return n >= 2 && !ss[n-1].t.After(end) && ss[n-1].v > ss[n-2].v && s.now().Before(end.Add(lateSettles*s.o.Settle))
}

// pause sleeps d, or returns false when ctx ends first.
func pause(ctx context.Context, d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// fills is the Point field a metric fills: a rate of CPU is integrated
// into MetricCPUSeconds.
func fills(metricName string) string {
	if metricName == MetricCPU {
		return MetricCPUSeconds
	}
	return metricName
}

// assemble lays the metrics out as Points: at the raw counters' sample
// times when there are any, else on the step grid.
func assemble(values map[string]map[int64]float64, raw map[string][]sample, start, end time.Time, step time.Duration) []Point {
	grid := onGrid(values, start, end, step)
	if len(raw) == 0 {
		return grid
	}
	return onScrapes(grid, raw)
}

// onGrid lays the metrics on the step grid as Points. A rate of CPU is
// integrated into a counter when no counter was given.
func onGrid(values map[string]map[int64]float64, start, end time.Time, step time.Duration) []Point {
	get := func(name string, ms int64) float64 {
		if v, ok := values[name][ms]; ok {
			return v
		}
		return math.NaN()
	}
	_, counterCPU := values[MetricCPUSeconds]
	var out []Point
	var cum float64
	for t := start; !t.After(end); t = t.Add(step) {
		ms := t.UnixMilli()
		p := unknownPoint(t)
		p.MemBytes = get(MetricMemory, ms)
		p.Periods = get(MetricCFSPeriods, ms)
		p.ThrottledPeriods = get(MetricCFSThrottledPeriods, ms)
		p.ThrottledSeconds = get(MetricCFSThrottledSeconds, ms)
		p.CPULimit = get(MetricCPULimit, ms)
		p.MemLimit = get(MetricMemoryLimit, ms)
		if counterCPU {
			p.CPUSeconds = get(MetricCPUSeconds, ms)
		} else if _, ok := values[MetricCPU]; ok {
			if r := get(MetricCPU, ms); known(r) && len(out) > 0 {
				cum += r * step.Seconds()
			}
			p.CPUSeconds = cum
		}
		out = append(out, p)
	}
	return out
}
