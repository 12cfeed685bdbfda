package analyze

import (
	"errors"
	"fmt"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// LadderLayer is one layer of a stack, as attribution needs it.
type LadderLayer struct {
	Name string
	// ExtAuthz marks an authorization service that the next layer
	// outwards calls on the side: its rung answers on its own.
	ExtAuthz bool
	// Rung indexes the layer's histogram in LadderInput.Hists; -1 when
	// the layer has no entry point of its own.
	Rung int
	// URL is the rung's URL, for the record.
	URL string
	// CapacityRPS is the rung's measured maximum throughput (0: unknown).
	CapacityRPS float64
}

// LadderInput is what AttributeLadder needs.
type LadderInput struct {
	// Layers are ordered from the client inwards.
	Layers []LadderLayer
	// Hists are the merged latency histograms of the rungs and of the
	// end-to-end slot; Names names them.
	Hists []*hdrhistogram.Histogram
	Names []string
	// Rounds are, for each of Hists, its rounds' histograms (merged, they
	// make Hists[i]), for the bootstrap to resample rounds as well as
	// requests. Default nil: each of Hists is one round.
	Rounds [][]*hdrhistogram.Histogram
	// EndToEnd indexes the end-to-end slot in Hists.
	EndToEnd int
	// PerMs is the histograms' units per millisecond. Default 1000 (µs).
	PerMs float64
	// Resamples, Seed and Confidence configure the bootstrap.
	// Defaults: DefaultResamples, DefaultSeed, DefaultConfidence.
	Resamples  int
	Seed       uint64
	Confidence float64
}

func (in *LadderInput) complete() {
	if in.PerMs <= 0 {
		in.PerMs = 1000
	}
	if in.Resamples <= 0 {
		in.Resamples = DefaultResamples
	}
	if in.Seed == 0 {
		in.Seed = DefaultSeed
	}
	if in.Confidence <= 0 || in.Confidence >= 1 {
		in.Confidence = DefaultConfidence
	}
}

// AttributeLadder computes each layer's added latency at P50, P95 and P99
// with bootstrap confidence intervals from the merged rung histograms, its
// share of the end-to-end latency, the unattributed remainder, the
// overhead of the stack in front of the backend and the bottleneck layer.
// It fills those fields of a results.Ladder; the caller fills the rest.
//
// The added latencies are differences of percentiles, and percentiles do
// not add: a layer's "added P95" is how far it moves the P95, not the P95
// of the time spent in it. The remainder is measured against an
// independent end-to-end sample, so it checks the decomposition.
func AttributeLadder(in LadderInput) (*results.Ladder, error) {
	in.complete()
	if err := checkHists(in); err != nil {
		return nil, err
	}
	forms, uncovered, err := LadderFormulas(in.Layers, in.Names)
	if err != nil {
		return nil, err
	}
	pools := make([]*roundsCDF, len(in.Hists))
	for i, h := range in.Hists {
		rounds := []*hdrhistogram.Histogram{h}
		if in.Rounds != nil {
			rounds = in.Rounds[i]
		}
		pools[i] = newRoundsCDF(rounds, in.PerMs)
	}
	figs := ladderFigures(in, forms)
	est := estimateFigures(in, pools, figs)
	l := &results.Ladder{Confidence: in.Confidence, Resamples: in.Resamples}
	n := len(figs)
	total, remainder, overhead, sum := est[n-4], est[n-3], est[n-2], est[n-1]
	l.TotalMs, l.TotalCIMs = total.point, total.ci
	l.UnattributedMs, l.UnattributedCIMs = remainder.point, remainder.ci
	l.OverheadMs, l.OverheadCIMs = overhead.point, overhead.ci
	l.SumMs = sum.point
	own := ladderOwnCapacity(in, forms)
	k := 0
	for i, layer := range in.Layers {
		f := forms[i]
		if f == nil {
			continue
		}
		e := est[k]
		k++
		l.Layers = append(l.Layers, results.LadderLayer{
			Name: layer.Name, Kind: kindOf(layer), Includes: f.Includes, URL: layer.URL, Formula: f.Text,
			AddedMs: e.point, CIMs: e.ci, Share: share(e.point, total.point), CapacityRPS: layer.CapacityRPS,
			OwnCapacityRPS: own[i],
		})
	}
	l.Bottleneck = ladderBottleneck(l.Layers)
	for _, u := range uncovered {
		l.Notes = append(l.Notes, fmt.Sprintf("%s has no rung of its own outside the outermost one: its cost is in the unattributed remainder.", u))
	}
	return l, nil
}

func checkHists(in LadderInput) error {
	if len(in.Names) != len(in.Hists) {
		return errors.New("attributing the ladder: one name per histogram needed")
	}
	if in.EndToEnd < 0 || in.EndToEnd >= len(in.Hists) {
		return errors.New("attributing the ladder: no end-to-end histogram")
	}
	for i, h := range in.Hists {
		if h == nil || h.TotalCount() == 0 {
			return fmt.Errorf("attributing the ladder: %s has no answered request", in.Names[i])
		}
	}
	if in.Rounds != nil && len(in.Rounds) != len(in.Hists) {
		return errors.New("attributing the ladder: one list of rounds per histogram needed")
	}
	for i, rs := range in.Rounds {
		if len(rs) == 0 || slices.ContainsFunc(rs, func(h *hdrhistogram.Histogram) bool { return h == nil }) {
			return fmt.Errorf("attributing the ladder: %s has no rounds", in.Names[i])
		}
	}
	for _, l := range in.Layers {
		if l.Rung >= len(in.Hists) {
			return fmt.Errorf("attributing the ladder: layer %s names histogram %d of %d", l.Name, l.Rung, len(in.Hists))
		}
	}
	return nil
}

func kindOf(l LadderLayer) string {
	if l.ExtAuthz {
		return results.LayerExtAuthz
	}
	return results.LayerInline
}

// ladderFigures lists every figure to estimate, as rung terms so that
// every interval comes from the same bootstrap draws: one per layer with a
// formula, then the total, the remainder, the overhead (every layer but
// the base) and the layers' sum.
func ladderFigures(in LadderInput, forms []*LadderFormula) [][]LadderTerm {
	var figs [][]LadderTerm
	var all, overhead []LadderTerm
	base := -1
	for i, l := range in.Layers {
		if !l.ExtAuthz && l.Rung >= 0 {
			base = i
		}
	}
	for i, f := range forms {
		if f == nil {
			continue
		}
		figs = append(figs, f.Terms)
		all = append(all, f.Terms...)
		if i != base {
			overhead = append(overhead, f.Terms...)
		}
	}
	remainder := []LadderTerm{{in.EndToEnd, 1}}
	for _, t := range all {
		remainder = append(remainder, LadderTerm{t.Hist, -t.Coef})
	}
	return append(figs, []LadderTerm{{in.EndToEnd, 1}}, remainder, overhead, all)
}

// figureEstimate is one figure's point estimates and intervals.
type figureEstimate struct {
	point results.LadderQuantiles
	ci    results.LadderIntervals
}

func evalTerms(terms []LadderTerm, value func(hist int) float64) float64 {
	var s float64
	for _, t := range terms {
		s += t.Coef * value(t.Hist)
	}
	return s
}

func share(added, total results.LadderQuantiles) results.LadderQuantiles {
	a, t := added.Values(), total.Values()
	var s [3]float64
	for i := range s {
		if t[i] > 0 {
			s[i] = roundTo(a[i]/t[i], 1e4)
		}
	}
	return results.QuantilesOf(s)
}
