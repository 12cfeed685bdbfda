package analyze

import "github.com/authbench/authbench/pkg/results"

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
