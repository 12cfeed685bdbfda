package analyze

import (
	"errors"
	"fmt"
)

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
