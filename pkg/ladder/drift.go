package ladder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/authbench/authbench/pkg/results"
)

// DriftNote starts the note that flags a rung's drifting rounds: the
// ladder's own word that its intervals may not cover what drifted.
const DriftNote = "Drift:"

// driftNotes flag the rounds whose median is far from the same rung's
// other rounds (more than twice their median, or under half of it, and
// at least a millisecond away): a stall of the host or a warming cache.
// The bootstrap resamples rounds, so the intervals widen with such a
// round, but a handful of rounds estimate drift poorly; the note says
// where it happened. Needs three rounds.
func driftNotes(res []results.Result, slots []*slot) []string {
	var notes []string
	for _, s := range slots {
		var p50 []float64
		var rounds []int
		for _, r := range res {
			if r.Target == s.name && r.Requests > 0 {
				p50, rounds = append(p50, r.Latency.P50), append(rounds, r.Iteration)
			}
		}
		if len(p50) < 3 {
			continue
		}
		m := median(p50)
		var odd []string
		for i, v := range p50 {
			if (v > 2*m || v < m/2) && abs(v-m) >= 1 {
				odd = append(odd, fmt.Sprintf("round %d: %.3g ms", rounds[i], v))
			}
		}
		if len(odd) > 0 {
			notes = append(notes, fmt.Sprintf(DriftNote+" %s's median latency was %.3g ms over its rounds but %s; "+
				"the intervals widen with it, but few rounds measure drift poorly — re-run, or run more rounds.", s.layer, m, strings.Join(odd, ", ")))
		}
	}
	return notes
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
