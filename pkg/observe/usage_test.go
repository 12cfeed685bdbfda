package observe

import (
	"math"
	"testing"
	"time"
)

var base = time.Date(2025, 11, 17, 10, 0, 0, 0, time.UTC)

// at builds a point n seconds after base with cumulative CPU cpu,
// memory mem and CFS counters.
func at(n float64, cpu, mem, periods, throttled float64) Point {
	p := unknownPoint(base.Add(time.Duration(n * float64(time.Second))))
	p.CPUSeconds, p.MemBytes, p.Periods, p.ThrottledPeriods = cpu, mem, periods, throttled
	p.ThrottledSeconds = throttled * 0.095
	p.CPULimit, p.MemLimit = 0.05, 64<<20
	return p
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarizeThrottledProxy(t *testing.T) {
	// Idle for 2 s, then 4 s pinned at a 50m limit, throttled in 8 of 10
	// periods every second, serving 100 requests.
	pts := []Point{
		at(0, 10.000, 30e6, 100, 0), at(1, 10.0001, 30e6, 100, 0), at(2, 10.0002, 31e6, 100, 0),
		at(3, 10.0502, 40e6, 110, 8), at(4, 10.1002, 45e6, 120, 16), at(5, 10.1502, 46e6, 130, 24),
		at(6, 10.2002, 44e6, 140, 32), at(7, 10.2003, 44e6, 140, 32),
	}
	w := window{idleStart: base, idleEnd: base.Add(2 * time.Second),
		start: base.Add(2 * time.Second), end: base.Add(6 * time.Second), requests: 100}
	u := summarize(Component{Name: "oauth2-proxy", Role: "auth-proxy"}, SourceLocal, pts, w)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"idle", u.CPUIdle, 0.0001},
		{"mean", u.CPUMean, 0.05},
		{"peak", u.CPUPeak, 0.05},
		{"per 1k", u.CPUSecondsPer1k, 2},
		{"rps per core", u.RPSPerCore, 500},
		{"mem start", u.MemStart, 31e6},
		{"mem mean", u.MemMean, (31e6 + 40e6 + 45e6 + 46e6 + 44e6) / 5},
		{"mem peak", u.MemPeak, 46e6},
		{"throttled ratio", u.ThrottledRatio, 0.8},
		{"throttled seconds", u.ThrottledSeconds, 32 * 0.095},
		{"periods", float64(u.Periods), 40},
		{"cpu limit", u.CPULimit, 0.05},
		{"mem limit", u.MemLimit, 64 << 20},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-6*math.Max(1, c.want)) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(u.Samples) != 4 || u.Samples[0].T != 1 || !near(u.Samples[0].Throttle, 0.8, 1e-9) {
		t.Errorf("samples = %+v; want 4 per-second samples from t=1", u.Samples)
	}
	if u.Name != "oauth2-proxy" || u.Role != "auth-proxy" || u.Source != SourceLocal {
		t.Errorf("identity = %q %q %q", u.Name, u.Role, u.Source)
	}
}

// cpuAt builds points n seconds after base with cumulative CPU, pairs of
// (seconds, CPU-seconds).
func cpuAt(pairs ...float64) []Point {
	var pts []Point
	for i := 0; i+1 < len(pairs); i += 2 {
		pts = append(pts, at(pairs[i], pairs[i+1], 1, 0, 0))
	}
	return pts
}

func sec(n float64) time.Time { return base.Add(time.Duration(n * float64(time.Second))) }

func TestSummarizeWindowEdges(t *testing.T) {
	// Readings every 10 s (a scrape interval) with windows between them:
	// the straddling intervals are split at the window's edges.
	tests := []struct {
		name       string
		pts        []Point
		start, end float64
		want       float64
	}{
		{"steady load: as interpolation", cpuAt(0, 0, 10, 10, 20, 20, 30, 30), 12, 16, 1},
		{"load starting at the window's start", cpuAt(0, 0, 10, 0, 20, 8, 30, 18), 12, 30, 1},
		{"load stopping at the window's end", cpuAt(0, 0, 10, 10, 20, 16, 30, 16, 40, 16), 0, 16, 1},
		{"no reading beyond: interpolated", cpuAt(10, 0, 20, 10), 12, 16, 1},
		{"window past the last reading: cut to it", cpuAt(0, 0, 10, 5), 5, 15, 0.5},
		{"rate beyond capped at the straddling increase", cpuAt(0, 0, 10, 20, 20, 21), 15, 20, 0},
		{"window before the readings", cpuAt(10, 0, 20, 10), 0, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := window{start: sec(tt.start), end: sec(tt.end), requests: 10}
			u := summarize(Component{Name: "c"}, SourcePrometheus, tt.pts, w)
			if !near(u.CPUMean, tt.want, 1e-9) {
				t.Errorf("mean = %v, want %v", u.CPUMean, tt.want)
			}
		})
	}
}

func TestSummarizeIdleBaseline(t *testing.T) {
	// Idle at 0.01 cores until 2.5 s, then 1 core.
	tests := []struct {
		name string
		pts  []Point
		want float64
	}{
		{"readings inside the idle window", cpuAt(0, 0, 1, 0.01, 2, 0.02, 3, 0.535, 4, 1.535), 0.01},
		{"one reading inside: the rate beyond splits the straddling interval",
			cpuAt(-1, 0, 1, 0.02, 3, 0.535, 5, 2.535), 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := window{idleStart: base, idleEnd: sec(2.5), start: sec(2.5), end: sec(4)}
			u := summarize(Component{Name: "c"}, SourceLocal, tt.pts, w)
			if !near(u.CPUIdle, tt.want, 1e-9) {
				t.Errorf("idle = %v, want %v", u.CPUIdle, tt.want)
			}
		})
	}
}

func TestSummarizeCounterReset(t *testing.T) {
	// A restart at 3 s: the counter falls to 0.2 and goes on.
	pts := []Point{at(0, 5, 1, 0, 0), at(1, 5.5, 1, 0, 0), at(2, 6, 1, 0, 0), at(3, 0.2, 1, 0, 0), at(4, 0.7, 1, 0, 0)}
	u := summarize(Component{Name: "c"}, SourceLocal, pts, window{start: base, end: base.Add(4 * time.Second)})
	if !near(u.CPUMean, 1.5/4, 1e-9) {
		t.Errorf("mean across a reset = %v, want %v (the reset interval lost, not the window)", u.CPUMean, 1.5/4)
	}
}

func TestSummarizeUnknownValues(t *testing.T) {
	pts := []Point{unknownPoint(base), unknownPoint(base.Add(time.Second))}
	u := summarize(Component{Name: "c"}, SourcePrometheus, pts, window{start: base, end: base.Add(time.Second), requests: 5})
	if u.CPUMean != 0 || u.ThrottledRatio != 0 || u.MemPeak != 0 || u.CPULimit != 0 || math.IsNaN(u.RPSPerCore) {
		t.Errorf("usage from unknown points = %+v; want zeros", u)
	}
	if u := summarize(Component{Name: "c"}, SourceLocal, nil, window{}); u.Name != "c" {
		t.Errorf("no points: %+v", u)
	}
}

func TestAssemble(t *testing.T) {
	start := base
	ms := func(s int64) int64 { return start.UnixMilli() + s*1000 }
	tests := []struct {
		name    string
		values  map[string]map[int64]float64
		wantCPU []float64
	}{
		{"rate integrated", map[string]map[int64]float64{MetricCPU: {ms(0): 0.5, ms(1): 0.5, ms(2): 1}},
			[]float64{0, 0.5, 1.5}},
		{"counter wins", map[string]map[int64]float64{MetricCPU: {ms(0): 9}, MetricCPUSeconds: {ms(0): 3, ms(1): 3.2, ms(2): 3.4}},
			[]float64{3, 3.2, 3.4}},
		{"missing counter sample", map[string]map[int64]float64{MetricCPUSeconds: {ms(0): 3, ms(2): 3.4}},
			[]float64{3, math.NaN(), 3.4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts := assemble(tt.values, nil, start, start.Add(2*time.Second), time.Second)
			if len(pts) != 3 {
				t.Fatalf("%d points", len(pts))
			}
			for i, p := range pts {
				w := tt.wantCPU[i]
				if (math.IsNaN(w) != math.IsNaN(p.CPUSeconds)) || (!math.IsNaN(w) && !near(p.CPUSeconds, w, 1e-9)) {
					t.Errorf("point %d cpu = %v, want %v", i, p.CPUSeconds, w)
				}
				if known(p.MemBytes) {
					t.Errorf("point %d memory = %v, want unknown", i, p.MemBytes)
				}
			}
		})
	}
}
