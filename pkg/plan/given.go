package plan

import (
	"strings"
)

// Paths of the settings a user may give, as Given and FieldError name
// them: the scenario file's keys.
const (
	FieldName           = "name"
	FieldRequests       = "load.requests"
	FieldDuration       = "load.duration"
	FieldConcurrency    = "load.concurrency"
	FieldRate           = "load.rate"
	FieldStages         = "load.stages"
	FieldIterations     = "load.iterations"
	FieldWarmup         = "load.warmup"
	FieldDelay          = "load.delay"
	FieldTimeout        = "client.timeout"
	FieldCert           = "client.cert"
	FieldKey            = "client.key"
	FieldSampleInterval = "sample_interval"
	FieldSLOP50         = "slo.p50"
	FieldSLOP95         = "slo.p95"
	FieldSLOP99         = "slo.p99"
	FieldSLOSuccessRate = "slo.success_rate"
	FieldSLOThroughput  = "slo.throughput"
)

// Given records which settings a user gave and where: a field path (see
// the Field constants) to a scenario position ("s.yaml:12") or a flag
// ("-c", "--slo"). It is the plan's explicit "unset": a field absent from
// Given was not given, and Complete fills its default; a field in Given
// keeps its value, zero included, and Validate checks it. Scenario files
// and flags both write it; a flag given beside a scenario replaces the
// scenario's entry. Code that overwrites a given setting with a zero
// should delete its entry (the requests/duration pair excepted: either
// may be zero while the other is set).
type Given map[string]string

// Give records that field was given at origin.
func (p *Plan) Give(field, origin string) {
	if p.Given == nil {
		p.Given = Given{}
	}
	p.Given[field] = origin
}

// given reports whether field was given.
func (p *Plan) given(field string) bool {
	_, ok := p.Given[field]
	return ok
}

// fromFlag reports whether field was given by a command-line flag.
func (p *Plan) fromFlag(field string) (string, bool) {
	o, ok := p.Given[field]
	return o, ok && strings.HasPrefix(o, "-")
}

// FieldError is one impossible value of a plan field.
type FieldError struct {
	// Field is the field's path, such as "load.concurrency".
	Field string
	// Origin is where the value was given, as in Given; "" when unknown.
	Origin string
	// Msg says what is wrong.
	Msg string
}

// Error names the field the way the user gave it: "s.yaml:6:
// load.concurrency: must be at least 1, got 0" for a scenario,
// "concurrency (-c): must be at least 1, got 0" for a flag.
func (e *FieldError) Error() string {
	switch {
	case e.Origin == "":
		return e.Field + ": " + e.Msg
	case strings.HasPrefix(e.Origin, "-"):
		leaf := e.Field[strings.LastIndexByte(e.Field, '.')+1:]
		return leaf + " (" + e.Origin + "): " + e.Msg
	default:
		return e.Origin + ": " + e.Field + ": " + e.Msg
	}
}

// Errors is every impossible value of a plan, in the order checked.
type Errors []*FieldError

// Error is one problem per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}
