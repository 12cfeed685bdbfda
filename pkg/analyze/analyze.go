// Package analyze turns a run's measurements into judgements: the
// diagnosis of why latency is what it is (Diagnose, findings*.go), the SLO
// checks (EvaluateSLO), capacity and resource advice (PlanCapacity), and the
// comparison of runs (Compare). Every judgement quotes the numbers it rests
// on, so a reader can check it against run.json.
package analyze

import (
	"github.com/authbench/authbench/pkg/results"
)

// targetResults groups a run's results by target, keeping the order in
// which targets first appear.
func targetResults(rs []results.Result) (names []string, by map[string][]results.Result) {
	by = map[string][]results.Result{}
	for _, r := range rs {
		if _, ok := by[r.Target]; !ok {
			names = append(names, r.Target)
		}
		by[r.Target] = append(by[r.Target], r)
	}
	return names, by
}

// avgOf is the arithmetic mean of f over rs (0 for none).
func avgOf(rs []results.Result, f func(results.Result) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	var s float64
	for _, r := range rs {
		s += f(r)
	}
	return s / float64(len(rs))
}
