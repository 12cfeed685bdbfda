package analyze

import (
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// RunSummary is what a run's summary says besides run.json's figures,
// computed here once, so that the report only words and lays it out.
type RunSummary struct {
	// SLA is each target's suggested objectives, from its iterations that
	// measured a latency. A target without one has none, and a capacity
	// run none at all: its SLO was the search's input, and its steps past
	// capacity would make the worst iteration the target.
	SLA map[string]TargetSLA
	// Steps is the SLO's verdict on each step of a capacity run, by
	// target and step number (Result.Iteration).
	Steps map[string]map[int]SLOVerdict
}

// TargetSLA is one target's suggested objectives.
type TargetSLA struct {
	SLASuggestion
	// Closed says they come from a closed loop, whose latency at
	// saturation is queueing: the report says to confirm them open loop.
	Closed bool
}

// SLOVerdict is the SLO's verdict on one result.
type SLOVerdict int

// Verdicts of the SLO on one result.
const (
	// SLOUnchecked: the SLO has no objective a result can be checked on.
	SLOUnchecked SLOVerdict = iota
	SLOMet
	SLOMissed
)

// Summarize analyses run for its summary.
func Summarize(run *results.Run) *RunSummary {
	s := &RunSummary{SLA: map[string]TargetSLA{}, Steps: map[string]map[int]SLOVerdict{}}
	if run.Kind == results.KindCapacity {
		for _, r := range run.Results {
			if s.Steps[r.Target] == nil {
				s.Steps[r.Target] = map[int]SLOVerdict{}
			}
			s.Steps[r.Target][r.Iteration] = stepVerdict(&run.Plan, r)
		}
		return s
	}
	ok := map[string][]results.Result{}
	for _, r := range run.Results {
		if r.Requests > 0 && r.Latency.P50 > 0 {
			ok[r.Target] = append(ok[r.Target], r)
		}
	}
	for target, rs := range ok {
		s.SLA[target] = TargetSLA{SLASuggestion: SuggestSLA(rs), Closed: rs[0].Model == plan.Closed}
	}
	return s
}

// Step is the SLO's verdict on step n of target's search.
func (s *RunSummary) Step(target string, n int) SLOVerdict {
	if s == nil {
		return SLOUnchecked
	}
	return s.Steps[target][n]
}

// TargetSLA is target's suggested objectives, if it has any.
func (s *RunSummary) TargetSLA(target string) (TargetSLA, bool) {
	if s == nil {
		return TargetSLA{}, false
	}
	t, ok := s.SLA[target]
	return t, ok
}

// stepVerdict checks one step against the plan's SLO.
func stepVerdict(p *plan.Plan, r results.Result) SLOVerdict {
	checks := EvaluateSLO(p, []results.Result{r})
	switch {
	case len(checks) == 0:
		return SLOUnchecked
	case SLOFailed(checks):
		return SLOMissed
	}
	return SLOMet
}
