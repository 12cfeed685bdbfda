package analyze

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// synthHist records n samples (ms) from gen into a µs histogram shaped
// like the engine's.
func synthHist(n int, seed uint64, gen func(r *rand.Rand) float64) *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	r := rand.New(rand.NewPCG(seed, 7))
	for range n {
		_ = h.RecordValue(int64(math.Round(gen(r) * 1000)))
	}
	return h
}

// backendMs is a skewed backend latency: 1 ms plus an exponential tail.
func backendMs(r *rand.Rand) float64 { return 1 + r.ExpFloat64()*0.5 }

func shifted(d float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return backendMs(r) + d }
}

func TestLadderFormulas(t *testing.T) {
	names := []string{"gw", "auth", "rbac", "echo", "e2e"}
	tests := []struct {
		name      string
		layers    []LadderLayer
		want      []string // formula text per layer ("" for none)
		includes  map[string]string
		uncovered string
		err       string
	}{
		{
			name:   "inline chain",
			layers: []LadderLayer{{Name: "gw", Rung: 0}, {Name: "rbac", Rung: 2}, {Name: "echo", Rung: 3}},
			want:   []string{"gw - rbac", "rbac - echo", "echo"},
		},
		{
			name: "ext_authz called by the gateway",
			layers: []LadderLayer{{Name: "gw", Rung: 0}, {Name: "auth", Rung: 1, ExtAuthz: true},
				{Name: "rbac", Rung: 2}, {Name: "echo", Rung: 3}},
			want: []string{"gw - rbac - (auth - echo)", "auth - echo", "rbac - echo", "echo"},
		},
		{
			name:     "layer without rung folds into the next layer outwards",
			layers:   []LadderLayer{{Name: "gw", Rung: 0}, {Name: "rbac", Rung: -1}, {Name: "echo", Rung: 3}},
			want:     []string{"gw - echo", "", "echo"},
			includes: map[string]string{"gw": "rbac"},
		},
		{
			name:      "layer outside the outermost rung is unattributed",
			layers:    []LadderLayer{{Name: "gw", Rung: -1}, {Name: "rbac", Rung: 2}, {Name: "echo", Rung: 3}},
			want:      []string{"", "rbac - echo", "echo"},
			uncovered: "gw",
		},
		{
			name:     "backend without rung is inside the innermost rung",
			layers:   []LadderLayer{{Name: "gw", Rung: 0}, {Name: "rbac", Rung: 2}, {Name: "echo", Rung: -1}},
			want:     []string{"gw - rbac", "rbac", ""},
			includes: map[string]string{"rbac": "echo"},
		},
		{
			name:   "no inline rung",
			layers: []LadderLayer{{Name: "auth", Rung: 1, ExtAuthz: true}, {Name: "echo", Rung: -1}},
			err:    "no inline layer has a rung",
		},
		{
			name:   "ext_authz with nothing inside",
			layers: []LadderLayer{{Name: "echo", Rung: 3}, {Name: "auth", Rung: 1, ExtAuthz: true}},
			err:    "ext_authz layer auth has no inline rung inside it",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forms, uncovered, err := LadderFormulas(tc.layers, names)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range forms {
				got := ""
				if f != nil {
					got = f.Text
					if inc := strings.Join(f.Includes, ","); inc != tc.includes[tc.layers[i].Name] {
						t.Errorf("%s includes %q, want %q", tc.layers[i].Name, inc, tc.includes[tc.layers[i].Name])
					}
				}
				if got != tc.want[i] {
					t.Errorf("%s: formula %q, want %q", tc.layers[i].Name, got, tc.want[i])
				}
			}
			if strings.Join(uncovered, ",") != tc.uncovered {
				t.Errorf("uncovered %v, want %q", uncovered, tc.uncovered)
			}
		})
	}
}

// TestAttributeLadder builds rungs whose layers add known constant delays
// to a skewed backend: a constant shift moves every percentile by exactly
// the delay, so each layer's figure must recover it at P50, P95 and P99.
func TestAttributeLadder(t *testing.T) {
	const n = 20000
	tests := []struct {
		name   string
		layers []LadderLayer
		hists  []*hdrhistogram.Histogram // rungs..., e2e last
		names  []string
		added  map[string]float64 // ms, at every percentile
		unattr float64
	}{
		{
			name:   "inline chain 5 ms + 2 ms",
			layers: []LadderLayer{{Name: "gw", Rung: 2}, {Name: "rbac", Rung: 1}, {Name: "echo", Rung: 0}},
			hists: []*hdrhistogram.Histogram{synthHist(n, 1, backendMs), synthHist(n, 2, shifted(2)),
				synthHist(n, 3, shifted(7)), synthHist(n, 4, shifted(7))},
			names: []string{"echo", "rbac", "gw", "e2e"},
			added: map[string]float64{"gw": 5, "rbac": 2, "echo": 1.35},
		},
		{
			name: "ext_authz 3 ms called by the gateway (1 ms) before rbac (2 ms)",
			layers: []LadderLayer{{Name: "gw", Rung: 3}, {Name: "auth", Rung: 2, ExtAuthz: true},
				{Name: "rbac", Rung: 1}, {Name: "echo", Rung: 0}},
			hists: []*hdrhistogram.Histogram{synthHist(n, 1, backendMs), synthHist(n, 2, shifted(2)),
				synthHist(n, 3, shifted(3)), synthHist(n, 4, shifted(6)), synthHist(n, 5, shifted(6))},
			names: []string{"echo", "rbac", "auth", "gw", "e2e"},
			added: map[string]float64{"gw": 1, "auth": 3, "rbac": 2},
		},
		{
			name:   "gateway without a rung: its 4 ms are unattributed",
			layers: []LadderLayer{{Name: "gw", Rung: -1}, {Name: "rbac", Rung: 1}, {Name: "echo", Rung: 0}},
			hists: []*hdrhistogram.Histogram{synthHist(n, 1, backendMs), synthHist(n, 2, shifted(2)),
				synthHist(n, 3, shifted(6))},
			names:  []string{"echo", "rbac", "e2e"},
			added:  map[string]float64{"rbac": 2},
			unattr: 4,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := AttributeLadder(LadderInput{Layers: tc.layers, Hists: tc.hists, Names: tc.names,
				EndToEnd: len(tc.hists) - 1, Resamples: 400})
			if err != nil {
				t.Fatal(err)
			}
			for _, layer := range l.Layers {
				want, ok := tc.added[layer.Name]
				if !ok {
					continue
				}
				checkFigure(t, layer.Name, layer.AddedMs, layer.CIMs, want, layer.Name != "echo")
			}
			checkFigure(t, "unattributed", l.UnattributedMs, l.UnattributedCIMs, tc.unattr, true)
			// The remainder is the total minus the sum, exactly.
			tot, sum, rem := l.TotalMs.Values(), l.SumMs.Values(), l.UnattributedMs.Values()
			for i := range tot {
				if math.Abs(tot[i]-sum[i]-rem[i]) > 2e-3 { // each rounded to the µs
					t.Errorf("p%g: total %g - sum %g != remainder %g", results.LadderPercentiles[i], tot[i], sum[i], rem[i])
				}
				var shares float64
				for _, layer := range l.Layers {
					shares += layer.Share.Values()[i]
				}
				if want := sum[i] / tot[i]; math.Abs(shares-want) > 1e-3 { // shares are rounded to 1e-4
					t.Errorf("p%g: shares add to %g, want sum/total %g", results.LadderPercentiles[i], shares, want)
				}
			}
		})
	}
}

// checkFigure checks that the interval is ordered and, when exact, that
// the point and interval recover want to within the histogram's
// resolution; otherwise only the P50 (backend: 1 + ln2/2 ms).
func checkFigure(t *testing.T, name string, got results.LadderQuantiles, ci results.LadderIntervals, want float64, exact bool) {
	t.Helper()
	for i, v := range got.Values() {
		lo, hi := ci.Values()[i][0], ci.Values()[i][1]
		if lo > hi {
			t.Errorf("%s p%g: interval [%g, %g] reversed", name, results.LadderPercentiles[i], lo, hi)
		}
		if !exact && i > 0 {
			continue
		}
		const res = 0.02 // ms: 3 significant digits of ~10 ms plus the draws' spread
		if math.Abs(v-want) > res+(hi-lo) || lo > want+res || hi < want-res {
			t.Errorf("%s p%g = %.3f [%.3f, %.3f], want %.3f", name, results.LadderPercentiles[i], v, lo, hi, want)
		}
	}
}

// TestLadderRemainderCatchesDrift is the check the remainder exists for:
// an end-to-end slot slower than the outermost rung (a layer the rungs
// miss) gives a remainder whose interval excludes zero.
func TestLadderRemainderCatchesDrift(t *testing.T) {
	const n = 5000
	l, err := AttributeLadder(LadderInput{
		Layers: []LadderLayer{{Name: "gw", Rung: 1}, {Name: "echo", Rung: 0}},
		Hists:  []*hdrhistogram.Histogram{synthHist(n, 1, backendMs), synthHist(n, 2, shifted(1)), synthHist(n, 3, shifted(1.5))},
		Names:  []string{"echo", "gw", "e2e"}, EndToEnd: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if lo := l.UnattributedCIMs.P50[0]; lo <= 0 {
		t.Errorf("remainder P50 %g [%g, ...]: interval should exclude zero", l.UnattributedMs.P50, lo)
	}
}

func TestAttributeLadderErrors(t *testing.T) {
	h := synthHist(100, 1, backendMs)
	tests := []struct {
		name string
		in   LadderInput
		want string
	}{
		{"empty histogram", LadderInput{Layers: []LadderLayer{{Name: "echo", Rung: 0}},
			Hists: []*hdrhistogram.Histogram{hdrhistogram.New(1, 1000, 3), h}, Names: []string{"echo", "e2e"}, EndToEnd: 1},
			"echo has no answered request"},
		{"no end-to-end", LadderInput{Layers: []LadderLayer{{Name: "echo", Rung: 0}},
			Hists: []*hdrhistogram.Histogram{h}, Names: []string{"echo"}, EndToEnd: 3}, "no end-to-end"},
		{"names", LadderInput{Layers: []LadderLayer{{Name: "echo", Rung: 0}},
			Hists: []*hdrhistogram.Histogram{h, h}, Names: []string{"echo"}, EndToEnd: 1}, "one name per histogram"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := AttributeLadder(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLadderBottleneck checks the own capacities and the layer named
// from them, on the migration reports' misconfiguration and around it.
func TestLadderBottleneck(t *testing.T) {
	tests := []struct {
		name string
		caps []float64 // gw, auth (ext_authz), rbac, echo
		want string
		own  map[string]float64
	}{
		{"throttled auth caps the gateway too", []float64{68, 93, 1523, 16044}, "auth", map[string]float64{"auth": 93.5}},
		{"a slow gateway", []float64{500, 3000, 2000, 10000}, "gw", map[string]float64{"gw": 786.5, "rbac": 2500}},
		{"a slow backend limits every rung", []float64{900, 990, 950, 1000}, "echo", map[string]float64{"echo": 1000, "rbac": 19000}},
		{"unknown capacities are skipped", []float64{140, 0, 0, 3000}, "echo", map[string]float64{"gw": 0, "auth": 0, "rbac": 0}},
		{"nothing measured", []float64{0, 0, 0, 0}, "", nil},
	}
	names := []string{"echo", "rbac", "auth", "gw", "e2e"}
	var hists []*hdrhistogram.Histogram
	for i := range names {
		hists = append(hists, synthHist(100, uint64(i), backendMs))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := AttributeLadder(LadderInput{Hists: hists, Names: names, EndToEnd: 4, Resamples: 10, Layers: []LadderLayer{
				{Name: "gw", Rung: 3, CapacityRPS: tc.caps[0]}, {Name: "auth", Rung: 2, ExtAuthz: true, CapacityRPS: tc.caps[1]},
				{Name: "rbac", Rung: 1, CapacityRPS: tc.caps[2]}, {Name: "echo", Rung: 0, CapacityRPS: tc.caps[3]},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if l.Bottleneck != tc.want {
				t.Errorf("bottleneck = %q, want %q", l.Bottleneck, tc.want)
			}
			for _, layer := range l.Layers {
				if want, ok := tc.own[layer.Name]; ok && math.Abs(layer.OwnCapacityRPS-want) > 0.05*want+1e-9 {
					t.Errorf("%s: own capacity %.1f req/s, want %.1f", layer.Name, layer.OwnCapacityRPS, want)
				}
			}
		})
	}
}

// roundsOf makes n rounds of per samples, round bad shifted by extra ms,
// and returns them with their merge.
func roundsOf(per int, seed uint64, d float64, bad int, extra float64) ([]*hdrhistogram.Histogram, *hdrhistogram.Histogram) {
	var rounds []*hdrhistogram.Histogram
	merged := hdrhistogram.New(1, 3_600_000_000, 3)
	for r := range 6 {
		shift := d
		if r == bad {
			shift += extra
		}
		h := synthHist(per, seed*10+uint64(r), shifted(shift))
		merged.Merge(h)
		rounds = append(rounds, h)
	}
	return rounds, merged
}

// TestLadderRoundsBootstrap checks what resampling rounds adds: drift in
// one slot's round widens the intervals that involve it (the merged
// histogram alone would call a stall significant), while drift common to
// a round of every rung cancels in the layers' figures.
func TestLadderRoundsBootstrap(t *testing.T) {
	layers := []LadderLayer{{Name: "gw", Rung: 1}, {Name: "echo", Rung: 0}}
	names := []string{"echo", "gw", "e2e"}
	attribute := func(rounds [][]*hdrhistogram.Histogram, merged []*hdrhistogram.Histogram, withRounds bool) *results.Ladder {
		in := LadderInput{Layers: layers, Hists: merged, Names: names, EndToEnd: 2, Resamples: 400}
		if withRounds {
			in.Rounds = rounds
		}
		l, err := AttributeLadder(in)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	t.Run("a stalled end-to-end round", func(t *testing.T) {
		var rounds [][]*hdrhistogram.Histogram
		var merged []*hdrhistogram.Histogram
		for i, d := range []float64{0, 2, 2} {
			bad := -1
			if i == 2 {
				bad = 3
			}
			r, m := roundsOf(1000, uint64(i+1), d, bad, 3)
			rounds, merged = append(rounds, r), append(merged, m)
		}
		plain := attribute(rounds, merged, false)
		if ci := plain.UnattributedCIMs.P50; ci[0] <= 0 {
			t.Fatalf("merged bootstrap: remainder P50 %v should exclude zero (the stall looks significant)", ci)
		}
		cluster := attribute(rounds, merged, true)
		if ci := cluster.UnattributedCIMs.P50; ci[0] > 0 || ci[1] < 0 {
			t.Errorf("cluster bootstrap: remainder P50 %v, want an interval holding zero: one stalled round in six is drift", ci)
		}
	})
	t.Run("drift common to a round cancels", func(t *testing.T) {
		var rounds [][]*hdrhistogram.Histogram
		var merged []*hdrhistogram.Histogram
		for i, d := range []float64{0, 2, 2} {
			r, m := roundsOf(1000, uint64(i+1), d, 3, 3)
			rounds, merged = append(rounds, r), append(merged, m)
		}
		l := attribute(rounds, merged, true)
		gw := l.Layers[0]
		// A stalled round makes the pool bimodal near its median, so the
		// rungs' independent draws cancel less well than without: the
		// interval widens a little, the total's a lot.
		if w := gw.CIMs.P50[1] - gw.CIMs.P50[0]; w > 0.3 || gw.AddedMs.P50 < 1.9 || gw.AddedMs.P50 > 2.1 {
			t.Errorf("gw added P50 %.3f %v: a shift every rung saw in the same round should cancel", gw.AddedMs.P50, gw.CIMs.P50)
		}
		if w := l.TotalCIMs.P50[1] - l.TotalCIMs.P50[0]; w < 1 {
			t.Errorf("total P50 interval %v: resampling rounds should show the stalled round", l.TotalCIMs.P50)
		}
	})
}
