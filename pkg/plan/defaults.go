package plan

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/authbench/authbench/pkg/redact"
)

// Defaults applied by Complete. Each Plan field documents its own default;
// these constants are the single place the values live.
const (
	DefaultRequests    = 200
	DefaultConcurrency = 50
	DefaultIterations  = 1
	DefaultTimeout     = Duration(20 * time.Second)
	DefaultMethod      = "GET"
	DefaultName        = "run"
)

// Complete fills the fields that were not given (see Given) with their
// defaults. The orchestrator calls it once, before Validate; scenario
// files and flags only record what the user gave.
func (p *Plan) Complete() {
	p.fillDefaults()
	p.completed = true
}

func (p *Plan) fillDefaults() {
	if p.Name == "" {
		p.Name = DefaultName
	}
	l := &p.Load
	if len(l.Stages) > 0 && l.Duration == 0 && !p.given(FieldDuration) {
		l.Duration = l.Stages.Total()
	}
	if l.Requests == 0 && l.Duration == 0 && !p.given(FieldRequests) {
		l.Requests = DefaultRequests
	}
	if l.Concurrency == 0 && !p.given(FieldConcurrency) {
		l.Concurrency = DefaultConcurrency
	}
	if l.Iterations == 0 && !p.given(FieldIterations) {
		l.Iterations = DefaultIterations
	}
	if p.Client.Timeout == 0 && !p.given(FieldTimeout) {
		p.Client.Timeout = DefaultTimeout
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		if t.Method == "" {
			t.Method = DefaultMethod
		}
		if t.Name == "" {
			t.Name = DefaultTargetName(t.URL)
		}
		t.BodyBytes = len(t.Body)
	}
}

// DefaultTargetName is a target's name when none is given: its URL's
// host:port ("" for a URL without one).
func DefaultTargetName(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Host
	}
	return ""
}

// Ready is the one settings step before a plan runs: its defaults
// (Complete), then every check (Validate). Every driver (run, capacity,
// the ladder, pods) calls it, so that the packages below receive a plan
// that is complete and valid.
func (p *Plan) Ready() error {
	p.Complete()
	return p.Validate()
}

// effective is the plan as it will run: p itself once completed, else a
// completed copy, so that Validate may run before Complete.
func (p *Plan) effective() *Plan {
	if p.completed {
		return p
	}
	q := *p
	q.Targets = append([]Target(nil), p.Targets...)
	q.fillDefaults()
	return &q
}

// Validate reports every impossible value of the plan as it will run
// (Errors), each naming where it was given; or a missing or bad target.
// It is the one place settings are checked, whether they came from a
// scenario file or from flags, and may run before or after Complete.
func (p *Plan) Validate() error {
	if len(p.Targets) == 0 {
		return errors.New("no target: give a URL or a scenario file with targets")
	}
	for _, t := range p.Targets {
		if err := ValidateURL(t.URL); err != nil && len(p.Targets) > 1 {
			return fmt.Errorf("target %q: %w", t.Name, err)
		} else if err != nil {
			return err
		}
		for _, r := range t.Rungs {
			if err := ValidateURL(r.URL); err != nil {
				return fmt.Errorf("target %q, rung %s: %w", t.Name, r.Layer, err)
			}
		}
	}
	return p.ValidateSettings()
}

// ValidateSettings is Validate without the targets: the load, client, SLO
// and sampling settings, every problem at once (Errors).
func (p *Plan) ValidateSettings() error {
	v := &validation{p: p, q: p.effective()}
	v.load()
	v.targets()
	v.client()
	v.slo()
	v.finiteSLO()
	v.execution()
	v.publish()
	if len(v.errs) > 0 {
		return v.errs
	}
	return nil
}

// ValidateURL checks that s is an absolute http or https URL with a host.
func ValidateURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		// url.Error quotes the URL whole: say only what is wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("bad url %q: %w", redact.URL(s), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("bad url %q: scheme must be http or https", redact.URL(s))
	}
	if u.Host == "" {
		return fmt.Errorf("bad url %q: no host", redact.URL(s))
	}
	if err := checkURLPort(u); err != nil {
		return fmt.Errorf("bad url %q: %w", redact.URL(s), err)
	}
	return nil
}
