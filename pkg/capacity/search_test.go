package capacity

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
)

// sim is a deterministic target: below its capacity it keeps up with a
// flat latency; above, its backlog grows through the step, so latency
// climbs and, once its in-flight bound is reached, the achieved rate
// falls to its capacity. A simulated clock advances by the step length.
type sim struct {
	capacity float64
	step     time.Duration
	inflight float64 // the engine's bound on requests in flight
	now      time.Time
	calls    int
	fail     map[int]bool // calls (from 1) that miss the SLO by noise
	comps    func(rate float64) []Component
	err      func(call int) error
}

func newSim(capacity float64) *sim {
	return &sim{capacity: capacity, step: 2 * time.Second, inflight: 1e9, now: time.Unix(0, 0)}
}

func (s *sim) clock() time.Time { return s.now }

func (s *sim) measure(ctx context.Context, rate float64) (Point, error) {
	s.calls++
	s.now = s.now.Add(s.step)
	if s.err != nil {
		if err := s.err(s.calls); err != nil {
			return Point{}, err
		}
	}
	p := Point{Offered: rate, Achieved: rate, Throughput: min(rate, s.capacity), P50: 4, P95: 5, P99: 6,
		SuccessRate: 1, Requests: int64(rate * s.step.Seconds())}
	if rate > s.capacity {
		backlog := (rate - s.capacity) * s.step.Seconds()
		p.P99 += min(backlog, s.inflight) / s.capacity * 1000
		p.P95, p.P50 = p.P99*0.95, p.P99/2
		if backlog > s.inflight {
			p.Achieved = s.capacity
		}
	}
	if s.fail[s.calls] {
		p.P99 = 1e4
	}
	if s.comps != nil {
		p.Components = s.comps(rate)
	}
	return p, nil
}

func (s *sim) options(slo plan.SLO) Options {
	return Options{SLO: slo, Min: 10, Budget: 10 * time.Minute, HostCPUs: 2, Now: s.clock}
}

var p99Under50 = plan.SLO{P99: plan.Duration(50 * time.Millisecond), SuccessRate: 0.999}

// checkInterval asserts the search's own statement: capacity below the
// first failing rate, narrower than the precision, confirmed by a majority
// of repeats.
func checkInterval(t *testing.T, r *Result, o Options) {
	t.Helper()
	if r.Capacity <= 0 || r.FirstFail <= r.Capacity {
		t.Fatalf("interval [%g, %g] is empty", r.Capacity, r.FirstFail)
	}
	if r.Stop != StopPrecision || r.Width > o.Precision+1e-9 {
		t.Errorf("stop %q width %g, want %q within %g", r.Stop, r.Width, StopPrecision, o.Precision)
	}
	if r.Spread == nil || r.Spread.Passed < o.Repeats/2+1 || r.Spread.N > o.Repeats {
		t.Errorf("spread %+v, want a majority of %d measurements passing at the capacity", r.Spread, o.Repeats)
	}
}

func TestSearchFindsKnownCapacity(t *testing.T) {
	tests := []struct {
		name     string
		capacity float64
		slo      plan.SLO
		inflight float64
		// The boundary the SLO puts on the target: a rate above capacity
		// passes while its backlog stays under the latency limit, or
		// (with no latency objective) while the achieved rate follows.
		boundary float64
	}{
		{"p99 under 50ms", 800, p99Under50, 1e9, 800 * (1 + 0.044/2)},
		{"p99 under 50ms, odd capacity", 333, p99Under50, 1e9, 333 * (1 + 0.044/2)},
		{"keeping up only", 800, plan.SLO{}, 64, 800 / Follow},
		{"p95 only, high capacity", 45000, plan.SLO{P95: plan.Duration(20 * time.Millisecond)}, 1e9, 45000 * 1.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(tt.capacity)
			s.inflight = tt.inflight
			o := s.options(tt.slo)
			r, err := Search(context.Background(), s.measure, o)
			if err != nil {
				t.Fatal(err)
			}
			o.Complete()
			checkInterval(t, r, o)
			if want := min(r.Capacity, tt.capacity); r.Sustained != want {
				t.Errorf("sustained %g req/s at an offered %g, want the target's %g", r.Sustained, r.Capacity, want)
			}
			if r.Capacity > tt.boundary || r.FirstFail < tt.capacity {
				t.Errorf("capacity in [%g, %g], want the boundary between %g and %g inside it",
					r.Capacity, r.FirstFail, tt.capacity, tt.boundary)
			}
			for _, st := range r.Steps {
				if st.Pass && st.Offered > tt.boundary+1e-9 || !st.Pass && st.Offered <= tt.capacity {
					t.Errorf("step %d at %g: pass=%v disagrees with the simulated target", st.N, st.Offered, st.Pass)
				}
			}
		})
	}
}

func TestSearchRampDoublesThenBisects(t *testing.T) {
	s := newSim(800)
	r, err := Search(context.Background(), s.measure, s.options(p99Under50))
	if err != nil {
		t.Fatal(err)
	}
	// One passing measurement per ramp rate; the first failing rate is
	// measured again, as it takes a majority (2 of 3) to fail it.
	want := []float64{10, 20, 40, 80, 160, 320, 640, 1280, 1280}
	for i, w := range want {
		if r.Steps[i].Offered != w || r.Steps[i].Phase != PhaseRamp {
			t.Fatalf("step %d: %s at %g, want ramp at %g", i+1, r.Steps[i].Phase, r.Steps[i].Offered, w)
		}
	}
	if st := r.Steps[len(want)]; st.Phase != PhaseBisect || st.Offered != 960 {
		t.Errorf("first step after the ramp: %s at %g, want bisect at 960", st.Phase, st.Offered)
	}
	if len(r.Curve) < len(want) || r.Curve[0].Offered != 10 {
		t.Errorf("curve has %d points from %g", len(r.Curve), r.Curve[0].Offered)
	}
	for i := 1; i < len(r.Curve); i++ {
		if r.Curve[i].Offered <= r.Curve[i-1].Offered {
			t.Fatalf("curve not ascending at %d", i)
		}
	}
}

func TestSearchStops(t *testing.T) {
	tests := []struct {
		name     string
		capacity float64
		opts     func(*Options)
		stop     string
		check    func(*testing.T, *Result, *sim)
	}{
		{"min already fails", 5, nil, StopBelowMin, func(t *testing.T, r *Result, s *sim) {
			if r.Capacity != 0 || r.FirstFail != 10 || len(r.Steps) != 2 {
				t.Errorf("capacity %g first fail %g after %d steps", r.Capacity, r.FirstFail, len(r.Steps))
			}
		}},
		{"max met", 1e6, func(o *Options) { o.Max = 1000 }, StopMax, func(t *testing.T, r *Result, s *sim) {
			if r.Capacity != 1000 || r.FirstFail != 0 || r.Spread.Passed != DefaultRepeats/2+1 {
				t.Errorf("capacity %g first fail %g spread %+v", r.Capacity, r.FirstFail, r.Spread)
			}
		}},
		{"budget", 800, func(o *Options) { o.Budget = 11 * time.Second }, StopBudget, func(t *testing.T, r *Result, s *sim) {
			// 2 s steps: the sixth would end at 12 s.
			if len(r.Steps) != 5 || r.ElapsedS > 11 {
				t.Errorf("%d steps in %g s within an 11 s budget", len(r.Steps), r.ElapsedS)
			}
		}},
		{"no upper bound within the budget", 1e15, func(o *Options) { o.Budget = time.Minute }, StopBudget, func(t *testing.T, r *Result, s *sim) {
			if r.FirstFail != 0 || r.Capacity != r.Steps[len(r.Steps)-1].Offered {
				t.Errorf("capacity %g first fail %g", r.Capacity, r.FirstFail)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(tt.capacity)
			o := s.options(p99Under50)
			if tt.opts != nil {
				tt.opts(&o)
			}
			r, err := Search(context.Background(), s.measure, o)
			if err != nil {
				t.Fatal(err)
			}
			if r.Stop != tt.stop {
				t.Errorf("stop = %q, want %q", r.Stop, tt.stop)
			}
			tt.check(t, r, s)
		})
	}
}

// TestSearchNoise: one measurement missing the SLO by noise, wherever it
// falls, is outvoted by the repeats: the search states what it states
// without it.
func TestSearchNoise(t *testing.T) {
	quiet := newSim(800)
	want, err := Search(context.Background(), quiet.measure, quiet.options(p99Under50))
	if err != nil {
		t.Fatal(err)
	}
	for call := 1; call <= quiet.calls; call++ {
		s := newSim(800)
		s.fail = map[int]bool{call: true}
		o := s.options(p99Under50)
		r, err := Search(context.Background(), s.measure, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Complete()
		checkInterval(t, r, o)
		if r.Capacity != want.Capacity || r.FirstFail != want.FirstFail {
			t.Errorf("noise at call %d: [%g, %g], want [%g, %g] as without it",
				call, r.Capacity, r.FirstFail, want.Capacity, want.FirstFail)
		}
	}
}

func TestSearchErrors(t *testing.T) {
	boom := errors.New("boom")
	t.Run("measure fails", func(t *testing.T) {
		s := newSim(800)
		s.err = func(call int) error {
			if call == 3 {
				return boom
			}
			return nil
		}
		r, err := Search(context.Background(), s.measure, s.options(p99Under50))
		if !errors.Is(err, boom) || r == nil || len(r.Steps) != 2 {
			t.Fatalf("err %v, result %+v", err, r)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s := newSim(800)
		s.err = func(call int) error {
			if call == 4 {
				cancel()
				return ctx.Err()
			}
			return nil
		}
		r, err := Search(ctx, s.measure, s.options(p99Under50))
		if !errors.Is(err, context.Canceled) || r.Stop != StopInterrupted || len(r.Steps) != 3 || r.Capacity != 40 {
			t.Fatalf("err %v stop %q steps %d capacity %g", err, r.Stop, len(r.Steps), r.Capacity)
		}
	})
	for _, tt := range []struct {
		name string
		o    Options
	}{
		{"negative min", Options{Min: -1}},
		{"max below min", Options{Min: 100, Max: 50}},
		{"NaN min", Options{Min: math.NaN()}},
		{"infinite max", Options{Min: 10, Max: math.Inf(1)}},
		{"min beyond the engine", Options{Min: 1e300}},
		{"precision 1", Options{Precision: 1}},
		{"negative budget", Options{Budget: -time.Second}},
		{"negative repeats", Options{Repeats: -2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if r, err := Search(context.Background(), newSim(1).measure, tt.o); err == nil || r != nil {
				t.Errorf("Search(%+v) = %v, %v; want an error", tt.o, r, err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	ok := Point{Offered: 100, Achieved: 100, P50: 4, P95: 8, P99: 9, SuccessRate: 1, Requests: 200}
	slo := plan.SLO{P50: plan.Duration(5 * time.Millisecond), P95: plan.Duration(10 * time.Millisecond),
		P99: plan.Duration(10 * time.Millisecond), SuccessRate: 0.999, Throughput: 1e6}
	with := func(f func(*Point)) Point { p := ok; f(&p); return p }
	tests := []struct {
		name string
		p    Point
		want []string
	}{
		{"met (throughput is not a per-step objective)", ok, nil},
		{"p99 over", with(func(p *Point) { p.P99 = 10.5 }), []string{ObjectiveP99}},
		{"p99 at the limit", with(func(p *Point) { p.P99 = 10 }), nil},
		{"p50 and p95 over", with(func(p *Point) { p.P50, p.P95 = 6, 11 }), []string{ObjectiveP50, ObjectiveP95}},
		{"success rate", with(func(p *Point) { p.SuccessRate = 0.998 }), []string{ObjectiveSuccessRate}},
		{"no request", with(func(p *Point) { p.Requests, p.SuccessRate = 0, 0 }), []string{ObjectiveSuccessRate}},
		{"not keeping up", with(func(p *Point) { p.Achieved = 94.9 }), []string{ObjectiveAchieved}},
		{"keeping up at 95%", with(func(p *Point) { p.Achieved = 95 }), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(slo, tt.p)
			if len(got) != len(tt.want) {
				t.Fatalf("missed %+v, want %v", got, tt.want)
			}
			for i, m := range got {
				if m.Objective != tt.want[i] {
					t.Errorf("missed[%d] = %s, want %s", i, m.Objective, tt.want[i])
				}
			}
		})
	}
}

func TestThroughputObjective(t *testing.T) {
	for _, tt := range []struct {
		min  float64
		want bool
	}{{500, true}, {900, false}} {
		s := newSim(800)
		slo := p99Under50
		slo.Throughput = tt.min
		r, err := Search(context.Background(), s.measure, s.options(slo))
		if err != nil {
			t.Fatal(err)
		}
		if r.ThroughputMet == nil || *r.ThroughputMet != tt.want {
			t.Errorf("throughput >= %g with capacity %g: met = %v, want %v", tt.min, r.Capacity, r.ThroughputMet, tt.want)
		}
	}
}

func TestKnee(t *testing.T) {
	s := newSim(800)
	r, err := Search(context.Background(), s.measure, s.options(p99Under50))
	if err != nil {
		t.Fatal(err)
	}
	k := r.Knee
	if k == nil {
		t.Fatal("no knee on a hockey stick")
	}
	// The knee is the last flat point: at most the capacity, and the
	// next point is above it with a higher P99.
	if k.Rate > 800 || k.NextRate <= 800 || k.NextP99 <= k.P99 {
		t.Errorf("knee %+v, want the last rate ≤ 800 followed by one above", k)
	}
	flat := []Point{{Offered: 10, P99: 5}, {Offered: 20, P99: 5.1}, {Offered: 40, P99: 5.2}}
	if k := knee(flat); k != nil {
		t.Errorf("knee %+v on a flat curve", k)
	}
	if k := knee(flat[:2]); k != nil {
		t.Errorf("knee %+v from two points", k)
	}
}

// TestBottleneckAndHost: a proxy limited to 0.5 cores that costs 1 ms of
// CPU per request saturates at 450 req/s (90% of its limit), before the
// unlimited backend; together with the load generator they fill the
// 2-CPU host at capacity.
func TestBottleneckAndHost(t *testing.T) {
	comps := func(rate float64) []Component {
		proxy := math.Min(rate*0.001, 0.5)
		var thr float64
		if proxy >= 0.5 {
			thr = 0.4
		}
		return []Component{
			{Name: "authbench", Role: "load-generator", Source: "local", CPU: rate * 0.0005},
			{Name: "kube-auth-proxy", Role: "auth-proxy", Source: "local", CPU: proxy, Limit: 0.5, Throttled: thr},
			{Name: "echo", Role: "backend", Source: "local", CPU: rate * 0.0008},
		}
	}
	tests := []struct {
		name      string
		comps     func(float64) []Component
		want      string
		saturated bool
		contended bool
	}{
		{"limited proxy", comps, "kube-auth-proxy", true, true},
		{"no limits", func(rate float64) []Component {
			cs := comps(rate)
			cs[1].Limit, cs[1].Throttled, cs[1].CPU = 0, 0, rate*0.0001
			return cs
		}, "echo", false, false},
		{"nothing sampled", nil, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(800)
			s.comps = tt.comps
			r, err := Search(context.Background(), s.measure, s.options(p99Under50))
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if r.Bottleneck != nil || r.Host != nil {
					t.Errorf("bottleneck %+v host %+v with nothing sampled", r.Bottleneck, r.Host)
				}
				return
			}
			b := r.Bottleneck
			if b == nil || b.Component != tt.want || b.Saturated != tt.saturated {
				t.Fatalf("bottleneck %+v, want %s saturated=%v", b, tt.want, tt.saturated)
			}
			if tt.saturated && (b.Rate < 450 || b.Rate > 800) {
				t.Errorf("proxy saturated at %g req/s, want the first rate measured from 450", b.Rate)
			}
			if r.Host == nil || r.Host.Contended != tt.contended || r.Host.Rate != r.Capacity {
				t.Errorf("host %+v, want contended=%v at the capacity %g", r.Host, tt.contended, r.Capacity)
			}
		})
	}
}
