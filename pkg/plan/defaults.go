package plan

import (
	"errors"
	"fmt"
	"net/url"
	"time"
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

// Complete fills unset fields with their defaults.
func (p *Plan) Complete() {
	if p.Name == "" {
		p.Name = DefaultName
	}
	if p.Load.Requests == 0 && p.Load.Duration == 0 {
		p.Load.Requests = DefaultRequests
	}
	if p.Load.Concurrency == 0 {
		p.Load.Concurrency = DefaultConcurrency
	}
	if p.Load.Iterations == 0 {
		p.Load.Iterations = DefaultIterations
	}
	if p.Client.Timeout == 0 {
		p.Client.Timeout = DefaultTimeout
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		if t.Method == "" {
			t.Method = DefaultMethod
		}
		if t.Name == "" {
			if u, err := url.Parse(t.URL); err == nil && u.Host != "" {
				t.Name = u.Host
			}
		}
		t.BodyBytes = len(t.Body)
	}
}

// Validate reports the first impossible value. Scenario files are validated
// earlier with file and line; this catches plans built from flags.
func (p *Plan) Validate() error {
	if len(p.Targets) == 0 {
		return errors.New("no target: give a URL or a scenario file with targets")
	}
	for _, t := range p.Targets {
		if err := ValidateURL(t.URL); err != nil {
			return fmt.Errorf("target %q: %w", t.Name, err)
		}
	}
	l := p.Load
	switch {
	case l.Requests < 0:
		return fmt.Errorf("requests (-n) must not be negative, got %d", l.Requests)
	case l.Duration < 0:
		return fmt.Errorf("duration (-z) must not be negative, got %s", l.Duration)
	case l.Concurrency < 1:
		return fmt.Errorf("concurrency (-c) must be at least 1, got %d", l.Concurrency)
	case l.Rate < 0:
		return fmt.Errorf("rate (-q) must be positive, got %g", l.Rate)
	case l.Iterations < 1:
		return fmt.Errorf("iterations must be at least 1, got %d", l.Iterations)
	case l.WarmupRequests < 0 || l.WarmupDuration < 0:
		return errors.New("warmup must not be negative")
	case l.Delay < 0:
		return fmt.Errorf("delay must not be negative, got %s", l.Delay)
	case p.Client.Timeout <= 0:
		return fmt.Errorf("timeout (-t) must be positive, got %s", p.Client.Timeout)
	case l.Duration == 0 && l.Requests > 0 && l.Model() == Closed && int64(l.Concurrency) > l.Requests:
		return fmt.Errorf("concurrency (-c %d) cannot exceed requests (-n %d)", l.Concurrency, l.Requests)
	}
	return p.validateExecution()
}

// ValidateURL checks that s is an absolute http or https URL with a host.
func ValidateURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("bad url %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("bad url %q: scheme must be http or https", s)
	}
	if u.Host == "" {
		return fmt.Errorf("bad url %q: no host", s)
	}
	return nil
}
