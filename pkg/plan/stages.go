package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limits of a stage list. MaxStages bounds what the engine keeps per
// worker and stage (two histograms each); MaxStagesTotal keeps the
// schedule's arithmetic far from overflow and a typo ("30000h") from
// starting a run that never ends.
const (
	MaxStages      = 50
	MaxStagesTotal = Duration(7 * 24 * time.Hour)
)

// Stage is one part of an open-loop schedule: for Duration, the rate goes
// linearly from From to To requests per second (a hold when they are
// equal). Stages follow one another on one timeline, so a ramp's end is
// the next stage's start.
type Stage struct {
	// Duration of the stage, > 0. Required.
	Duration Duration `json:"duration"`
	// From is the total rate at the stage's start, in requests per second,
	// >= 0. Required.
	From float64 `json:"from_rps"`
	// To is the rate at its end; equal to From for a hold.
	To float64 `json:"to_rps"`
}

// String writes the stage as --stages reads it: "30s:100" or "60s:100-500".
func (s Stage) String() string {
	r := formatRate(s.From)
	if s.To != s.From {
		r += "-" + formatRate(s.To)
	}
	return s.Duration.String() + ":" + r
}

func formatRate(r float64) string { return strconv.FormatFloat(r, 'g', -1, 64) }

// Ramp reports whether the rate changes during the stage.
func (s Stage) Ramp() bool { return s.From != s.To }

// Mean is the stage's mean rate, requests per second.
func (s Stage) Mean() float64 { return (s.From + s.To) / 2 }

// Requests is how many requests the stage schedules: the rate's integral.
func (s Stage) Requests() float64 { return s.Mean() * s.Duration.D().Seconds() }

// Stages is an open-loop schedule: the stages in order.
type Stages []Stage

// String writes the stages as --stages reads them.
func (ss Stages) String() string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// Total is the schedule's duration.
func (ss Stages) Total() Duration {
	var d Duration
	for _, s := range ss {
		d += s.Duration
	}
	return d
}

// At is the stage running elapsed after the start (its index) and the
// target rate then; -1 and 0 outside the schedule. A live view reads
// the target it compares the achieved rate with here.
func (ss Stages) At(elapsed time.Duration) (int, float64) {
	var start time.Duration
	for i, s := range ss {
		d := s.Duration.D()
		if elapsed >= start && elapsed < start+d {
			f := float64(elapsed-start) / float64(d)
			return i, s.From + (s.To-s.From)*f
		}
		start += d
	}
	return -1, 0
}

// ParseStages reads --stages: comma-separated DURATION:RATE (a hold) or
// DURATION:FROM-TO (a linear ramp), such as "30s:100,60s:100-500,30s:500".
// A bad part is named by its position and text, with what is wrong in
// it; every stage is checked as Validate checks it (CheckStages).
func ParseStages(text string) (Stages, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New(`no stage: give DURATION:RATE or DURATION:FROM-TO parts separated by commas, e.g. "30s:100,60s:100-500"`)
	}
	parts := strings.Split(text, ",")
	if len(parts) > MaxStages {
		return nil, fmt.Errorf("%d stages: at most %d", len(parts), MaxStages)
	}
	out := make(Stages, 0, len(parts))
	for i, part := range parts {
		s, err := ParseStage(part)
		if err != nil {
			return nil, fmt.Errorf("stage %d %q: %w", i+1, clip(part), err)
		}
		out = append(out, s)
	}
	if err := out.check(); err != nil {
		return nil, err
	}
	return out, nil
}

// clip shortens a bad part echoed in an error: it is user input of any
// length.
func clip(s string) string {
	const most = 40
	s = strings.TrimSpace(s)
	if len(s) > most {
		return s[:most] + "..."
	}
	return s
}

// ParseStage reads one stage, DURATION:RATE or DURATION:FROM-TO, and
// checks it (CheckStage).
func ParseStage(text string) (Stage, error) {
	s, err := parseStage(strings.TrimSpace(text))
	if err == nil {
		err = CheckStage(s)
	}
	return s, err
}

func parseStage(part string) (Stage, error) {
	if part == "" {
		return Stage{}, errors.New("empty: give DURATION:RATE or DURATION:FROM-TO")
	}
	ds, rs, ok := strings.Cut(part, ":")
	if !ok {
		return Stage{}, errors.New("no ':' between the duration and the rate (DURATION:RATE or DURATION:FROM-TO)")
	}
	d, err := time.ParseDuration(strings.TrimSpace(ds))
	if err != nil {
		return Stage{}, fmt.Errorf("duration %q is not a duration such as 30s or 2m", clip(ds))
	}
	fs, ts, ramp := strings.Cut(rs, "-")
	from, err := parseRate(fs)
	if err != nil {
		return Stage{}, err
	}
	to := from
	if ramp {
		if to, err = parseRate(ts); err != nil {
			return Stage{}, err
		}
	}
	return Stage{Duration: Duration(d), From: from, To: to}, nil
}

func parseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("rate missing: give requests per second, or FROM-TO for a ramp")
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("rate %q is not a number of requests per second", clip(s))
	}
	return r, nil
}

// CheckStage reports why s cannot be a stage: a duration that is not
// positive, or a rate that is not finite, is negative or above MaxRate.
// Zero is a rate (a pause, or a ramp from or to nothing).
func CheckStage(s Stage) error {
	if s.Duration <= 0 {
		return fmt.Errorf("duration must be positive, got %s", s.Duration)
	}
	for _, r := range []float64{s.From, s.To} {
		switch {
		case math.IsNaN(r) || math.IsInf(r, 0):
			return fmt.Errorf("rate must be a finite number of requests per second, got %g", r)
		case r < 0:
			return fmt.Errorf("rate must not be negative, got %g", r)
		case r > MaxRate:
			return fmt.Errorf("rate must be at most %d requests per second, got %g", MaxRate, r)
		}
	}
	return nil
}

// check is what no single stage shows: the count, the total duration,
// and that the schedule sends something.
func (ss Stages) check() error {
	if len(ss) > MaxStages {
		return fmt.Errorf("%d stages: at most %d", len(ss), MaxStages)
	}
	var total float64
	for _, s := range ss {
		total += s.Duration.D().Seconds()
	}
	if total > MaxStagesTotal.D().Seconds() {
		return fmt.Errorf("the stages last %.0f h in all: at most %s", total/3600, MaxStagesTotal)
	}
	var n float64
	for _, s := range ss {
		n += s.Requests()
	}
	if n < 1 {
		return errors.New("the stages schedule no request: give a rate above 0")
	}
	return nil
}

// CheckStages reports the first impossible stage (named by its position)
// or whole-schedule problem of ss.
func CheckStages(ss Stages) error {
	if len(ss) == 0 {
		return errors.New("no stage")
	}
	for i, s := range ss {
		if err := CheckStage(s); err != nil {
			return fmt.Errorf("stage %d (%s): %w", i+1, s, err)
		}
	}
	return ss.check()
}

// stages checks the schedule, and that nothing else sets the rate or the
// length of an iteration beside it: the stages set both.
func (v *validation) stages() {
	ss := v.p.Load.Stages
	if len(ss) == 0 {
		if v.p.given(FieldStages) {
			v.add(FieldStages, "no stage: give DURATION:RATE or DURATION:FROM-TO parts")
		}
		return
	}
	if err := CheckStages(ss); err != nil {
		v.add(FieldStages, "%v", err)
	}
	for _, o := range []struct{ field, key string }{
		{FieldRate, "rate"}, {FieldDuration, "duration"}, {FieldRequests, "requests"},
	} {
		if v.p.given(o.field) {
			v.add(FieldStages, "cannot be given with %s (%s): the stages set the rate and the duration", o.key, v.p.Given[o.field])
		}
	}
}

// Mean is the schedule's mean rate: its requests over its duration.
func (ss Stages) Mean() float64 {
	var n float64
	for _, s := range ss {
		n += s.Requests()
	}
	if d := ss.Total().D().Seconds(); d > 0 {
		return n / d
	}
	return 0
}
