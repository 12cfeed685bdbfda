package cli

import (
	"fmt"

	"github.com/authbench/authbench/pkg/plan"
)

// stagesValue is --stages: "30s:100,60s:100-500,30s:500", parsed and
// checked when the command line is (plan.ParseStages names the bad part).
type stagesValue struct{ stages plan.Stages }

func (s *stagesValue) String() string { return s.stages.String() }
func (s *stagesValue) Type() string   { return "stages" }
func (s *stagesValue) Set(text string) error {
	ss, err := plan.ParseStages(text)
	if err != nil {
		return err
	}
	s.stages = ss
	return nil
}

// applyStages lays --stages over the plan. The stages set the rate and
// the iteration's length, so a scenario's rate, duration or requests give
// way to them, and a rate, duration or count given by flag replaces a
// scenario's stages. Flags given together stay, and the plan refuses the
// pair naming both.
func (o *runOptions) applyStages(p *plan.Plan, give func(flag, field string)) {
	l := &p.Load
	switch {
	case o.changed("stages"):
		l.Stages = o.stages.stages
		give("stages", plan.FieldStages)
		if !o.changed("rate") {
			l.Rate = 0
			delete(p.Given, plan.FieldRate)
		}
		if !o.changed("duration") && !o.changed("requests") {
			l.Requests, l.Duration = 0, 0
			delete(p.Given, plan.FieldRequests)
			delete(p.Given, plan.FieldDuration)
		}
	case o.changed("rate") || o.changed("duration") || o.changed("requests"):
		l.Stages = nil
		delete(p.Given, plan.FieldStages)
	}
}

// refuseStages is the error of a command that sets its own rates
// (capacity, ladder) given a scenario with stages.
func refuseStages(p *plan.Plan, command string) error {
	if len(p.Load.Stages) == 0 {
		return nil
	}
	where := plan.FieldStages
	if o := p.Given[plan.FieldStages]; o != "" {
		where = o + ": " + where
	}
	return fmt.Errorf("%s: %s chooses its own rates, so it takes no stages: remove them, or use authbench run", where, command)
}
