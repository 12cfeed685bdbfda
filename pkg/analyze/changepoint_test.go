package analyze

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// noisy returns n values around level with Gaussian noise of relative
// standard deviation cv, stepping to level*step from index at on.
func noisy(rng *rand.Rand, n int, level, cv float64, at int, step float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		l := level
		if at >= 0 && i >= at {
			l *= step
		}
		v[i] = l * (1 + cv*rng.NormFloat64())
	}
	return v
}

func TestChangePointsSynthetic(t *testing.T) {
	tests := []struct {
		name   string
		n, at  int
		level  float64
		step   float64
		wantAt []int
	}{
		{"p95 rises 12% at run 15", 30, 15, 80, 1.12, []int{15}},
		{"throughput falls 20% at run 12", 25, 12, 1500, 0.80, []int{12}},
		{"step at the 3rd of 12 runs", 12, 3, 40, 1.3, []int{3}},
		{"noise only", 30, -1, 80, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 11))
			got := ChangePoints(noisy(rng, tt.n, tt.level, 0.03, tt.at, tt.step), ChangePointConfig{})
			if len(got) != len(tt.wantAt) {
				t.Fatalf("found %d change points %+v, want at %v", len(got), got, tt.wantAt)
			}
			for i, c := range got {
				if c.Index != tt.wantAt[i] {
					t.Errorf("change %d at %d, want %d", i, c.Index, tt.wantAt[i])
				}
				if rel := c.After/c.Before - 1; math.Abs(rel-(tt.step-1)) > 0.03 {
					t.Errorf("relative change %.3f, want about %.3f", rel, tt.step-1)
				}
				if c.PValue > DefaultChangeAlpha {
					t.Errorf("p-value %.3f above alpha", c.PValue)
				}
			}
		})
	}
}

func TestChangePointsTwoSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	v := append(noisy(rng, 15, 50, 0.02, -1, 1), noisy(rng, 15, 70, 0.02, -1, 1)...)
	v = append(v, noisy(rng, 15, 50, 0.02, -1, 1)...)
	got := ChangePoints(v, ChangePointConfig{})
	if len(got) != 2 || got[0].Index != 15 || got[1].Index != 30 {
		t.Fatalf("got %+v, want changes at 15 and 30", got)
	}
	if got[0].Relative <= 0 || got[1].Relative >= 0 {
		t.Errorf("directions: %+v", got)
	}
}

// TestChangePointsFalsePositiveRate runs detection over many seeded
// noise-only histories and reports the share with any change point: with
// the minimum relative change it must stay below the permutation test's
// own rate, which must hold about alpha.
func TestChangePointsFalsePositiveRate(t *testing.T) {
	const histories, n = 300, 30
	rate := func(cv float64, cfg ChangePointConfig) float64 {
		hits := 0
		for seed := range uint64(histories) {
			rng := rand.New(rand.NewPCG(seed, 99))
			if len(ChangePoints(noisy(rng, n, 100, cv, -1, 1), cfg)) > 0 {
				hits++
			}
		}
		return float64(hits) / histories
	}
	for _, tt := range []struct {
		cv, maxWithMin float64
	}{{0.02, 0.01}, {0.03, DefaultChangeAlpha}, {0.05, DefaultChangeAlpha}} {
		withMin := rate(tt.cv, ChangePointConfig{})
		raw := rate(tt.cv, ChangePointConfig{MinRelativeChange: -1})
		t.Logf("noise cv %.0f%%: false-positive rate over %d histories of %d runs %.3f with min change %.0f%%, %.3f from the permutation test alone (alpha %.2f)",
			tt.cv*100, histories, n, withMin, DefaultMinRelativeChange*100, raw, DefaultChangeAlpha)
		if withMin > tt.maxWithMin || withMin > raw {
			t.Errorf("cv %.2f: false-positive rate with minimum change %.3f, want <= %.3f and <= %.3f", tt.cv, withMin, tt.maxWithMin, raw)
		}
		// Binomial(300, 0.05) exceeds 0.09 with probability < 0.2%.
		if raw > 0.09 {
			t.Errorf("cv %.2f: false-positive rate of the permutation test %.3f, want about alpha %.2f", tt.cv, raw, DefaultChangeAlpha)
		}
	}
}

// TestBestSplitMatchesDefinition checks the incremental sums against the
// statistic computed from its definition.
func TestBestSplitMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4, 7, 20} {
		x := noisy(rng, n, 10, 0.5, n/2, 2)
		perm := identity(n)
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		tau, q := bestSplit(distances(x), perm, 2)
		wantTau, wantQ := 0, 0.0
		for s := 2; s <= n-2; s++ {
			if v := naiveQ(x, perm, s); v > wantQ {
				wantTau, wantQ = s, v
			}
		}
		if tau != wantTau || math.Abs(q-wantQ) > 1e-9*math.Max(1, wantQ) {
			t.Errorf("n=%d: bestSplit = (%d, %g), definition gives (%d, %g)", n, tau, q, wantTau, wantQ)
		}
	}
}

func naiveQ(x []float64, perm []int, tau int) float64 {
	var l, r []float64
	for i, p := range perm {
		if i < tau {
			l = append(l, x[p])
		} else {
			r = append(r, x[p])
		}
	}
	pair := func(a, b []float64, same bool) float64 {
		s, c := 0.0, 0
		for i := range a {
			for j := range b {
				if same && j <= i {
					continue
				}
				s += math.Abs(a[i] - b[j])
				c++
			}
		}
		return s / float64(c)
	}
	m, k := float64(len(l)), float64(len(r))
	return m * k / (m + k) * (2*pair(l, r, false) - pair(l, l, true) - pair(r, r, true))
}

func TestChangePointsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	v := noisy(rng, 20, 10, 0.1, 10, 1.2)
	a, b := ChangePoints(v, ChangePointConfig{}), ChangePoints(v, ChangePointConfig{})
	if len(a) != len(b) || (len(a) > 0 && a[0] != b[0]) {
		t.Errorf("two runs differ: %+v vs %+v", a, b)
	}
}

func TestChangePointsShort(t *testing.T) {
	for _, v := range [][]float64{nil, {1}, {1, 2}, {1, 1, 5}} {
		if got := ChangePoints(v, ChangePointConfig{}); len(got) != 0 {
			t.Errorf("%v: got %+v, want none", v, got)
		}
	}
}

func historyPoint(i int, target string, p95, rps float64, conc int, server string) HistoryPoint {
	return HistoryPoint{
		Row: store.HistoryRow{
			RunID: "id" + string(rune('a'+i/26)) + string(rune('a'+i%26)), RunName: "nightly",
			Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 24 * time.Hour),
			Model: "closed", Concurrency: conc, Target: target, Requests: 1000, Successes: 1000,
			SuccessRate: 1, P95: &p95, Throughput: rps,
		},
		Fingerprint: &results.TargetFingerprint{Target: target, Server: server, BodySHA256: "abc"},
	}
}

func TestDetectRegressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	tests := []struct {
		name         string
		build        func(i int, v float64) HistoryPoint
		step         float64
		wantChanges  int
		wantSegments int
		wantDir      string
		wantCurrent  bool
	}{
		{"p95 step is a current regression", func(i int, v float64) HistoryPoint {
			return historyPoint(i, "api", v, 1000, 10, "nginx")
		}, 1.15, 1, 1, Regression, true},
		{"p95 drop is an improvement", func(i int, v float64) HistoryPoint {
			return historyPoint(i, "api", v, 1000, 10, "nginx")
		}, 0.8, 1, 1, Improvement, true},
		{"concurrency change splits, no change", func(i int, v float64) HistoryPoint {
			c := 10
			if i >= 10 {
				c = 20
			}
			return historyPoint(i, "api", v, 1000, c, "nginx")
		}, 1.5, 0, 2, "", false},
		{"another backend splits, no change", func(i int, v float64) HistoryPoint {
			s := "nginx"
			if i >= 10 {
				s = "envoy"
			}
			return historyPoint(i, "api", v, 1000, 10, s)
		}, 1.5, 0, 2, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pts []HistoryPoint
			for i, v := range noisy(rng, 20, 50, 0.02, 10, tt.step) {
				pts = append(pts, tt.build(i, v))
			}
			rep := DetectRegressions(pts, RegressionQuery{Metrics: []TrendMetric{TrendP95}})
			if len(rep.Series) != 1 {
				t.Fatalf("series: %d", len(rep.Series))
			}
			s := rep.Series[0]
			if len(s.Changes) != tt.wantChanges || len(s.Segments) != tt.wantSegments {
				t.Fatalf("changes %+v segments %+v, want %d and %d", s.Changes, s.Segments, tt.wantChanges, tt.wantSegments)
			}
			if tt.wantSegments > 1 && len(s.Segments[1].Reasons) == 0 {
				t.Error("second segment gives no reason")
			}
			if tt.wantChanges == 0 {
				return
			}
			c := s.Changes[0]
			if c.Index != 10 || c.RunID != pts[10].Row.RunID || c.Direction != tt.wantDir || c.Current != tt.wantCurrent {
				t.Errorf("change %+v, want at run 10 (%s), %s, current %v", c, pts[10].Row.RunID, tt.wantDir, tt.wantCurrent)
			}
			if got := len(rep.CurrentRegressions()) > 0; got != (tt.wantCurrent && tt.wantDir == Regression) {
				t.Errorf("CurrentRegressions: %v", rep.CurrentRegressions())
			}
		})
	}
}

func TestThroughputDropIsRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var pts []HistoryPoint
	for i, v := range noisy(rng, 16, 1000, 0.02, 8, 0.7) {
		pts = append(pts, historyPoint(i, "api", 50, v, 10, "nginx"))
	}
	rep := DetectRegressions(pts, RegressionQuery{Metrics: []TrendMetric{TrendThroughput, TrendP95}})
	cur := rep.CurrentRegressions()
	if len(cur) != 1 || cur[0].Metric != TrendThroughput || cur[0].Index != 8 {
		t.Fatalf("current regressions %+v, want throughput at 8", cur)
	}
}

func TestParseTrendMetric(t *testing.T) {
	for _, s := range []string{"p50", "P95", "throughput", "success"} {
		if _, err := ParseTrendMetric(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := ParseTrendMetric("p90"); err == nil {
		t.Error("p90 accepted")
	}
}

// BenchmarkChangePoints measures detection over a 100-run history with
// one step (permutation tests dominate: O(permutations x n²)).
func BenchmarkChangePoints(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	v := noisy(rng, 100, 50, 0.03, 60, 1.1)
	for b.Loop() {
		ChangePoints(v, ChangePointConfig{})
	}
}

// A target's capacity searches, interleaved with its load runs, are a
// series of their own: the capacity dropping is found at the right
// search, and the load runs' steady throughput shows no change and no
// split. A change of the search's SLO splits the capacity series.
func TestCapacitySeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	load := noisy(rng, 16, 500, 0.02, 8, 1)
	caps := noisy(rng, 16, 800, 0.02, 8, 0.7)
	slo := plan.SLO{P99: plan.Duration(100 * time.Millisecond)}
	var pts []HistoryPoint
	for i := range 16 {
		pts = append(pts, historyPoint(2*i, "api", 50, load[i], 10, "nginx"))
		c := historyPoint(2*i+1, "api", 50, caps[i], 10, "nginx")
		c.Kind, c.SLO = results.KindCapacity, &slo
		pts = append(pts, c)
	}
	rep := DetectRegressions(pts, RegressionQuery{Metrics: []TrendMetric{TrendThroughput}})
	if len(rep.Series) != 2 || rep.Series[0].Kind != "" || rep.Series[1].Kind != results.KindCapacity {
		t.Fatalf("series %+v, want load then capacity", rep.Series)
	}
	if s := rep.Series[0]; len(s.Changes) != 0 || len(s.Segments) != 1 || len(s.Points) != 16 {
		t.Errorf("load series: changes %+v, segments %+v", s.Changes, s.Segments)
	}
	cur := rep.CurrentRegressions()
	if len(cur) != 1 || cur[0].Kind != results.KindCapacity || cur[0].Index != 8 || cur[0].RunID != pts[17].Row.RunID {
		t.Errorf("current regressions %+v, want the capacity drop at search 8", cur)
	}
	other := plan.SLO{P99: plan.Duration(50 * time.Millisecond)}
	pts[len(pts)-1].SLO = &other
	rep = DetectRegressions(pts, RegressionQuery{Metrics: []TrendMetric{TrendThroughput}})
	if segs := rep.Series[1].Segments; len(segs) != 2 || len(segs[1].Reasons) == 0 {
		t.Errorf("capacity segments %+v, want a split at the SLO change", segs)
	}
}
