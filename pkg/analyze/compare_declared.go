package analyze

import (
	"slices"
	"time"
)

// DatesApart is how far apart two runs' dates must be for a comparison
// to note that anything else that changed in between is in the
// difference.
const DatesApart = 24 * time.Hour

// Declared is what a side declares as different from the baseline on
// purpose: the layers under test (plan.Target.Layers). A difference they
// account for (the front layer's Server header, when the front layers
// differ) raises no warning; reports say the declaration as context.
// What differs without being declared (the backend's body, the load
// model, concurrency, rate, host, CPUs, cluster, date) still warns.
type Declared struct {
	// Side indexes Comparison.Sides: the side compared with the baseline.
	Side int `json:"side"`
	// BaseLayers and Layers are the baseline's and the side's declared
	// layers, from the client inwards.
	BaseLayers []string `json:"base_layers"`
	Layers     []string `json:"layers"`
	// Servers are the baseline's and the side's Server headers when they
	// differ as their front layers do; nil when they are equal or not
	// accounted for.
	Servers []string `json:"servers,omitempty"`
}

// declared returns what b declares as different from a: nil unless both
// declare their layers and the layers differ.
func declared(a, b *Side) *Declared {
	if len(a.Layers) == 0 || len(b.Layers) == 0 || slices.Equal(a.Layers, b.Layers) {
		return nil
	}
	d := &Declared{BaseLayers: a.Layers, Layers: b.Layers}
	if serverDeclared(a, b) {
		d.Servers = []string{a.Fingerprint.Server, b.Fingerprint.Server}
	}
	return d
}

// serverDeclared reports whether a and b's Server headers differ because
// their declared front layers do: the outermost layer that answers sets
// the header (or strips it), so a different front layer is expected to
// send a different one.
func serverDeclared(a, b *Side) bool {
	fa, fb := a.Fingerprint, b.Fingerprint
	return fa != nil && fb != nil && fa.Server != fb.Server &&
		len(a.Layers) > 0 && len(b.Layers) > 0 && a.Layers[0] != b.Layers[0]
}

// declarations lists, per non-baseline side, what it declares as
// different from the baseline.
func declarations(sides []*Side, baseline int) []Declared {
	var out []Declared
	for i, s := range sides {
		if i == baseline {
			continue
		}
		if d := declared(sides[baseline], s); d != nil {
			d.Side = i
			out = append(out, *d)
		}
	}
	return out
}

// rowDeclared reports whether a configuration row's difference is
// declared for every side that differs from the baseline: the layers
// themselves, or the Server header where the front layers account for it.
func rowDeclared(param string, r ConfigRow, sides []*Side, baseline int) bool {
	if param != paramArchitecture && param != paramServer {
		return false
	}
	for i, s := range sides {
		if i == baseline || r.Values[i] == r.Values[baseline] {
			continue
		}
		d := declared(sides[baseline], s)
		if d == nil || (param == paramServer && d.Servers == nil) {
			return false
		}
	}
	return true
}
