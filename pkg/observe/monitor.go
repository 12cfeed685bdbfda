package observe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// Defaults of the Monitor.
const (
	// DefaultInterval is how often pollers are read.
	DefaultInterval = time.Second
	// DefaultIdle is how long Start samples before returning, to measure
	// the components' idle use before any load.
	DefaultIdle = 2 * time.Second
	// queryTimeout bounds one Usage call's range queries.
	queryTimeout = 30 * time.Second
)

// Monitor runs samplers in the background for a whole run and summarises
// any window of it. Pollers are read every Interval from Start to Stop;
// range queriers are asked per window by Usage.
type Monitor struct {
	samplers []Sampler
	interval time.Duration
	// Idle is how long Start samples before returning; the readings taken
	// then are every window's idle baseline. Default DefaultIdle; set it
	// before Start.
	Idle time.Duration

	mu        sync.Mutex
	series    [][][]Point // sampler -> component -> points (pollers only)
	started   time.Time
	idleEnd   time.Time
	warnings  map[string]bool
	cancel    context.CancelFunc
	done      chan struct{}
	pollMutex sync.Mutex // one Poll at a time per sampler set
}

// NewMonitor returns a Monitor over samplers, polling every interval
// (DefaultInterval when zero).
func NewMonitor(samplers []Sampler, interval time.Duration) *Monitor {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Monitor{samplers: samplers, interval: interval, Idle: DefaultIdle,
		series: make([][][]Point, len(samplers)), warnings: map[string]bool{}}
}

// Start takes a first reading, starts polling in the background, and
// returns once the idle baseline (Idle) has been sampled. It fails when no
// poller can read anything at all.
func (m *Monitor) Start(ctx context.Context) error {
	for i, s := range m.samplers {
		if p, ok := s.(Poller); ok {
			m.series[i] = make([][]Point, len(p.Components()))
		}
	}
	m.started = time.Now()
	if err := m.pollAll(); err != nil {
		return err
	}
	ctx, m.cancel = context.WithCancel(ctx)
	m.done = make(chan struct{})
	go m.loop(ctx)
	select {
	case <-time.After(m.Idle):
	case <-ctx.Done():
	}
	m.mu.Lock()
	m.idleEnd = time.Now()
	m.mu.Unlock()
	m.pollAll()
	return nil
}

// Stop ends polling. Usage still works on what was read.
func (m *Monitor) Stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	<-m.done
}

func (m *Monitor) loop(ctx context.Context) {
	defer close(m.done)
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.pollAll()
		}
	}
}

// pollAll reads every poller once; it fails only when no component of any
// poller could be read. The time is taken under the poll lock, so that a
// catch-up poll and a tick cannot append points out of order.
func (m *Monitor) pollAll() error {
	m.pollMutex.Lock()
	defer m.pollMutex.Unlock()
	now := time.Now()
	var errs []error
	read, pollers := 0, 0
	for i, s := range m.samplers {
		p, ok := s.(Poller)
		if !ok {
			continue
		}
		pollers++
		pts, err := p.Poll(now)
		if err != nil {
			errs = append(errs, err)
		}
		m.mu.Lock()
		for j, pt := range pts {
			if j < len(m.series[i]) && !pt.Time.IsZero() {
				m.series[i][j] = append(m.series[i][j], pt)
				read++
			}
		}
		if err != nil {
			m.warnings[err.Error()] = true
		}
		m.mu.Unlock()
	}
	if pollers > 0 && read == 0 {
		return fmt.Errorf("sampling components: nothing could be read: %w", errors.Join(errs...))
	}
	return nil
}

// Add samples more components from now on, such as the replicas `lab
// scale` started during a run: their windows before now read nothing.
func (m *Monitor) Add(p Poller) {
	m.pollMutex.Lock()
	defer m.pollMutex.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.samplers = append(m.samplers, p)
	m.series = append(m.series, make([][]Point, len(p.Components())))
}

// Warnings lists the distinct sampling problems seen so far (a process
// gone, a query failing), for the run's log.
func (m *Monitor) Warnings() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.warnings))
	for w := range m.warnings {
		out = append(out, w)
	}
	return out
}

// Usage summarises every component over the window [start, end] in which
// requests requests completed. A failing range query is noted in Warnings
// and its components are left out.
func (m *Monitor) Usage(start, end time.Time, requests int64) []results.ComponentUsage {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	out, err := m.UsageContext(ctx, start, end, requests)
	if err != nil {
		m.mu.Lock()
		m.warnings[err.Error()] = true
		m.mu.Unlock()
	}
	return out
}

// UsageContext is Usage with a context for the range queries, returning
// their errors.
func (m *Monitor) UsageContext(ctx context.Context, start, end time.Time, requests int64) ([]results.ComponentUsage, error) {
	m.catchUp(end)
	m.mu.Lock()
	w := window{start: start, end: end, idleStart: m.started, idleEnd: m.idleEnd, requests: requests}
	samplers := m.samplers
	m.mu.Unlock()
	if w.idleStart.IsZero() || w.idleStart.After(start) {
		w.idleStart, w.idleEnd = start.Add(-m.Idle), start
	}
	var out []results.ComponentUsage
	var errs []error
	for i, s := range samplers {
		series, err := m.seriesOf(ctx, i, s, w)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s sampler: %w", s.Source(), err))
			continue
		}
		for j, c := range s.Components() {
			if j < len(series) {
				out = append(out, summarize(c, s.Source(), series[j], w))
			}
		}
	}
	return out, errors.Join(errs...)
}

// catchUp takes a reading now when the last one predates end, so that the
// window's last partial interval is not lost.
func (m *Monitor) catchUp(end time.Time) {
	m.mu.Lock()
	stale := false
	for _, comps := range m.series {
		for _, pts := range comps {
			if len(pts) > 0 && pts[len(pts)-1].Time.Before(end) {
				stale = true
			}
		}
	}
	m.mu.Unlock()
	if stale {
		m.pollAll()
	}
}

func (m *Monitor) seriesOf(ctx context.Context, i int, s Sampler, w window) ([][]Point, error) {
	if q, ok := s.(RangeQuerier); ok {
		return q.QueryRange(ctx, w.idleStart, w.end)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([][]Point, len(m.series[i]))
	for j, pts := range m.series[i] {
		out[j] = append([]Point(nil), pts...)
	}
	return out, nil
}
