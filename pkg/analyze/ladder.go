package analyze

import (
	"errors"
	"fmt"
	"slices"
	"strings"

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

// LadderTerm is one rung's percentile in a figure, with its coefficient.
type LadderTerm struct {
	Hist int
	Coef float64
}

// LadderFormula is one layer's figure as a sum of rung percentiles, the
// layers without a rung whose cost it includes, and its text.
type LadderFormula struct {
	Terms    []LadderTerm
	Includes []string
	Text     string
}

// LadderFormulas derives each layer's added latency from the rungs, for
// layers given from the client inwards (nil for a layer without a rung):
//
//   - the innermost inline rung (the base) is its whole rung: the backend
//     plus the client's own path to it;
//   - an inline layer is its rung minus the next inline rung inside it,
//     minus the ext_authz layers it calls (those between the two);
//   - an ext_authz layer is its rung minus the base: a hop to a trivial
//     server costs about what the base costs.
//
// A layer without a rung is folded into the nearest layer outwards whose
// figure contains it (Includes); outside the outermost rung it is left to
// the unattributed remainder (the returned list). By construction the
// figures sum to the outermost inline rung, plus any ext_authz layer that
// no measured layer calls.
func LadderFormulas(layers []LadderLayer, names []string) ([]*LadderFormula, []string, error) {
	base := -1
	for i, l := range layers {
		if !l.ExtAuthz && l.Rung >= 0 {
			base = i
		}
	}
	if base < 0 {
		return nil, nil, errors.New("attributing the ladder: no inline layer has a rung (the backend needs one)")
	}
	out := make([]*LadderFormula, len(layers))
	var uncovered []string
	for i, l := range layers {
		switch {
		case l.Rung < 0:
			if owner := coveringLayer(layers, i); owner >= 0 {
				continue // added to the owner below
			}
			uncovered = append(uncovered, l.Name)
		case l.ExtAuthz:
			if base < i {
				return nil, nil, fmt.Errorf("attributing the ladder: ext_authz layer %s has no inline rung inside it to measure its hop against", l.Name)
			}
			out[i] = &LadderFormula{
				Terms: []LadderTerm{{l.Rung, 1}, {layers[base].Rung, -1}},
				Text:  names[l.Rung] + " - " + names[layers[base].Rung],
			}
		default:
			out[i] = inlineFormula(layers, names, i, base)
		}
	}
	for i, l := range layers {
		if l.Rung < 0 {
			if owner := coveringLayer(layers, i); owner >= 0 {
				out[owner].Includes = append(out[owner].Includes, l.Name)
			}
		}
	}
	return out, uncovered, nil
}

func inlineFormula(layers []LadderLayer, names []string, i, base int) *LadderFormula {
	l := layers[i]
	f := &LadderFormula{Terms: []LadderTerm{{l.Rung, 1}}, Text: names[l.Rung]}
	if i == base {
		return f
	}
	inner := i + 1
	for layers[inner].ExtAuthz || layers[inner].Rung < 0 {
		inner++
	}
	f.Terms = append(f.Terms, LadderTerm{layers[inner].Rung, -1})
	f.Text += " - " + names[layers[inner].Rung]
	for k := i + 1; k < inner; k++ {
		if layers[k].ExtAuthz && layers[k].Rung >= 0 {
			f.Terms = append(f.Terms, LadderTerm{layers[k].Rung, -1}, LadderTerm{layers[base].Rung, 1})
			f.Text += " - (" + names[layers[k].Rung] + " - " + names[layers[base].Rung] + ")"
		}
	}
	return f
}

// coveringLayer is the layer whose figure contains layer i's cost when i
// has no rung: the nearest inline layer outwards with a rung, or -1.
func coveringLayer(layers []LadderLayer, i int) int {
	for j := i - 1; j >= 0; j-- {
		if !layers[j].ExtAuthz && layers[j].Rung >= 0 {
			return j
		}
	}
	return -1
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

// ladderOwnCapacity estimates what each layer alone would serve. At
// saturation a rung's inverse capacity is what one request costs its path
// (seconds of the scarcest resource), and where the layers share it those
// costs add as latencies do: a layer's cost is its formula applied to the
// inverse capacities, and its own capacity the inverse of that cost. Where
// layers have resources of their own the slowest one caps every rung
// around it and still has the largest cost. 0 when a capacity in the
// formula is unknown or the cost is not positive.
func ladderOwnCapacity(in LadderInput, forms []*LadderFormula) []float64 {
	inv := make([]float64, len(in.Hists))
	for _, l := range in.Layers {
		if l.Rung >= 0 && l.CapacityRPS > 0 {
			inv[l.Rung] = 1 / l.CapacityRPS
		}
	}
	out := make([]float64, len(in.Layers))
	for i, f := range forms {
		if f == nil {
			continue
		}
		known := true
		for _, t := range f.Terms {
			known = known && inv[t.Hist] > 0
		}
		if cost := evalTerms(f.Terms, func(h int) float64 { return inv[h] }); known && cost > 0 {
			out[i] = roundTo(1/cost, 10)
		}
	}
	return out
}

// ladderBottleneck names the layer with the lowest own capacity: the one
// whose requests cost the most. Empty when none is known.
func ladderBottleneck(layers []results.LadderLayer) string {
	best, name := 0.0, ""
	for _, l := range layers {
		if c := l.OwnCapacityRPS; c > 0 && (name == "" || c < best) {
			best, name = c, l.Name
		}
	}
	return name
}

// FormatLadderTerms renders terms with names, for tests and messages.
func FormatLadderTerms(terms []LadderTerm, names []string) string {
	var b strings.Builder
	for i, t := range terms {
		switch {
		case i == 0 && t.Coef < 0:
			b.WriteString("-")
		case i > 0 && t.Coef < 0:
			b.WriteString(" - ")
		case i > 0:
			b.WriteString(" + ")
		}
		b.WriteString(names[t.Hist])
	}
	return b.String()
}
