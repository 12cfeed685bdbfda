package load

import (
	"net/http"
	"time"

	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/plan"
)

// Request is what every request of one attack sends.
type Request struct {
	// Method is the HTTP method. Default "GET".
	Method string
	// URL is the absolute http or https URL.
	URL string
	// Host overrides the Host header. Default: from URL (or a "Host" entry
	// of Header).
	Host string
	// Header is sent with every request. With a Token, its Authorization
	// entry is replaced.
	Header http.Header
	// Body is sent with every request; Content-Length is set from it.
	Body []byte
	// Token, when set, is asked for a token before every request, sent as
	// "Authorization: Bearer <token>". May be nil.
	Token auth.TokenSource
}

// Spec is one attack's load, derived from plan.Load.
type Spec struct {
	// Model is informational: a positive Rate selects the open model.
	Model plan.Model
	// Requests to send. Ignored when Duration is set (plan.Load's rule).
	Requests int64
	// Duration of the attack; when positive it bounds the attack instead of
	// Requests.
	Duration time.Duration
	// Concurrency is the number of workers, and so of HTTP/1.1 connections
	// and of requests in flight. Default 1.
	Concurrency int
	// Rate is the total requests per second of the open model; 0 selects
	// the closed model.
	Rate float64
	// Stages, when set, is the open model's schedule instead of Rate:
	// holds and linear ramps on one timeline, which Duration (their
	// total) bounds.
	Stages plan.Stages
	// Stride and Slot share a staged schedule among attacks (pods): this
	// one sends global slots Slot, Slot+Stride, ... Default 0 and 0: all.
	Stride int
	Slot   int
}

// SpecFrom translates a plan's load into a Spec.
func SpecFrom(l plan.Load) Spec {
	return Spec{Model: l.Model(), Requests: l.Requests, Duration: l.Duration.D(), Concurrency: l.Concurrency, Rate: l.Rate, Stages: l.Stages}
}

// open reports whether the spec selects the open model.
func (s Spec) open() bool { return s.Rate > 0 || s.staged() }

// staged reports an open model run on Stages.
func (s Spec) staged() bool { return len(s.Stages) > 0 }

// model is the model actually run, whatever Model says.
func (s Spec) model() plan.Model {
	if s.open() {
		return plan.Open
	}
	return plan.Closed
}

// workers is how many workers are worth starting: never more than requests.
func (s Spec) workers() int {
	c := max(s.Concurrency, 1)
	if s.Duration <= 0 && s.Requests < int64(c) {
		c = int(max(s.Requests, 0))
	}
	return c
}

// empty reports a spec with nothing to send.
func (s Spec) empty() bool { return s.Duration <= 0 && s.Requests <= 0 }

// targetRPS is the open model's target rate: Rate, or the stages' mean.
func (s Spec) targetRPS() float64 {
	if s.staged() {
		return s.Stages.Mean()
	}
	return s.Rate
}
