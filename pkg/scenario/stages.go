package scenario

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/authbench/authbench/pkg/plan"
)

// stageList is load.stages: one --stages string ("30s:100,60s:100-500"),
// or a list whose items are such strings or mappings {duration, rate}
// (a hold) and {duration, from, to} (a ramp). Each stage is checked as
// --stages checks it, its error at its own line.
type stageList plan.Stages

// stageSpec is one stage written as a mapping.
type stageSpec struct {
	// Duration of the stage, > 0. Required.
	Duration *duration `yaml:"duration"`
	// Rate is held for the whole stage, >= 0. Not with from and to.
	Rate *float64 `yaml:"rate"`
	// From and To are a linear ramp's rates at the stage's start and end.
	// Both, or rate.
	From *float64 `yaml:"from"`
	To   *float64 `yaml:"to"`
}

func (s *stageList) decodeNode(d *decoder, n *yaml.Node, path string) {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		d.stageText(s, n, path)
	case n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			d.stageItem(s, resolve(item), fmt.Sprintf("%s[%d]", path, i))
		}
		if len(n.Content) == 0 {
			d.fail(n, path, "no stage: give DURATION:RATE or DURATION:FROM-TO items")
		}
	default:
		d.wrongType(n, path, `"DURATION:RATE,DURATION:FROM-TO" or a list of stages`)
	}
}

func (d *decoder) stageText(s *stageList, n *yaml.Node, path string) {
	ss, err := plan.ParseStages(n.Value)
	if err != nil {
		d.fail(n, path, "%v", err)
		return
	}
	*s = append(*s, ss...)
}

func (d *decoder) stageItem(s *stageList, item *yaml.Node, path string) {
	switch {
	case item.Kind == yaml.ScalarNode && item.ShortTag() == "!!str":
		st, err := plan.ParseStage(item.Value)
		if err != nil {
			d.fail(item, path, "%q: %v", item.Value, err)
			return
		}
		*s = append(*s, st)
	case item.Kind == yaml.MappingNode:
		var sp stageSpec
		before := d.nerr
		d.decode(item, reflectValue(&sp), path, item.Line)
		if d.nerr != before {
			return
		}
		st, err := sp.stage()
		if err == nil {
			err = plan.CheckStage(st)
		}
		if err != nil {
			d.fail(item, path, "%v", err)
			return
		}
		*s = append(*s, st)
	default:
		d.wrongType(item, path, `"DURATION:RATE", "DURATION:FROM-TO" or {duration: ..., rate: ...}`)
	}
}

// stage is the mapping's stage, or what is missing or doubled in it.
func (sp stageSpec) stage() (plan.Stage, error) {
	switch {
	case sp.Duration == nil:
		return plan.Stage{}, fmt.Errorf("duration: required")
	case sp.Rate != nil && (sp.From != nil || sp.To != nil):
		return plan.Stage{}, fmt.Errorf("give rate (a hold) or from and to (a ramp), not both")
	case sp.Rate != nil:
		return plan.Stage{Duration: plan.Duration(*sp.Duration), From: *sp.Rate, To: *sp.Rate}, nil
	case sp.From == nil || sp.To == nil:
		return plan.Stage{}, fmt.Errorf("a ramp needs from and to (or give rate for a hold)")
	}
	return plan.Stage{Duration: plan.Duration(*sp.Duration), From: *sp.From, To: *sp.To}, nil
}
