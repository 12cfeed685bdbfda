// Package ladder measures where a stack's latency goes (issue 6). It sends
// the same load to each layer's own entry point (a rung) from the inside
// out — backend, rbac proxy, auth service, gateway — and to the target's
// own URL (the end-to-end slot), interleaving them round after round
// (A B C D E A B C D E …) so that drift hits every rung alike.
//
// The load is an open loop at a fraction of the weakest rung's capacity,
// found first by a short closed-loop probe of every rung, so that no rung
// queues and latency is service time, not waiting time; a closed loop is
// used when asked. Attribution (pkg/analyze, AttributeLadder) turns the
// merged per-rung histograms into each layer's added latency with
// bootstrap intervals, its share, the unattributed remainder against the
// end-to-end slot, and the bottleneck named from the capacities. Where the
// gateway logs per-request timings (Hops), its own view of the ext_authz
// subrequest is shown beside the ladder's figure.
package ladder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/authbench/authbench/pkg/observe"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// Defaults of Options.
const (
	DefaultRounds        = 5
	DefaultSlotDuration  = time.Second
	DefaultRateFraction  = 0.5
	DefaultProbeDuration = time.Second
	DefaultProbeWarmup   = 300 * time.Millisecond
	// MinProbeSuccess is the success rate below which a rung is refused:
	// a ladder of 401s or timeouts would attribute the error path.
	MinProbeSuccess = 0.9
)

// Options configure one ladder.
type Options struct {
	// Target is the stack: URL (the end-to-end slot), Layers from the
	// client inwards, Rungs (each layer's own entry point), token, headers,
	// method and body. Required: at least one rung.
	Target plan.Target
	// Client configures the HTTP client (TLS, timeout).
	Client plan.Client
	// Rounds of the interleaved rungs. Default DefaultRounds.
	Rounds int
	// SlotDuration is each rung's turn in a round. Default
	// DefaultSlotDuration unless SlotRequests is set.
	SlotDuration time.Duration
	// SlotRequests bounds each turn by a request count instead.
	// Default 0 (use SlotDuration).
	SlotRequests int64
	// Concurrency is the closed loop's workers and the open loop's bound
	// on requests in flight; also the capacity probe's. Default 50.
	Concurrency int
	// Rate is the open loop's total rate on every rung. Default 0:
	// RateFraction of the weakest rung's capacity.
	Rate float64
	// RateFraction of the weakest capacity gives the rate. Default 0.5.
	RateFraction float64
	// Closed runs every turn as a closed loop instead. Default false.
	Closed bool
	// ProbeDuration and ProbeWarmup time each rung's capacity probe.
	// Defaults DefaultProbeDuration and DefaultProbeWarmup.
	ProbeDuration time.Duration
	ProbeWarmup   time.Duration
	// ExtAuthz names the layers that are ext_authz services. Nil: detect
	// them (a rung answering 2xx with a body other than the backend's,
	// when the end-to-end answer is the backend's). Empty: none.
	ExtAuthz []string
	// Gateway, when set, is read for the gateway's own per-request timings.
	Gateway *GatewayLog
	// Stack names the lab stack, for the record. Default "".
	Stack string
	// Resamples, Seed and Confidence configure the bootstrap; defaults as
	// in analyze.CompareOptions.
	Resamples  int
	Seed       uint64
	Confidence float64
	// Out is the runs directory to write the run into. Default "": no files.
	Out string
	// Name of the run. Default "ladder-" + the target's name.
	Name string
	// CommandLine (redacted) and Version are recorded in run.json.
	CommandLine []string
	Version     string
	// Log receives progress lines. Default io.Discard.
	Log io.Writer
	// Monitor, when set, samples components during every turn.
	Monitor *observe.Monitor
	// Reviews, when set, counts the API server's reviews per turn, so
	// that the apiserver-reviews finding can charge them to a layer.
	Reviews observe.ReviewCounter
	// Lab is recorded in run.json.
	Lab *results.Lab
	// Executor runs the load. Default runner.NewLocal(): this process.
	Executor runner.Executor
}

func (o *Options) complete() error {
	if o.Rounds == 0 {
		o.Rounds = DefaultRounds
	}
	if o.SlotDuration == 0 && o.SlotRequests == 0 {
		o.SlotDuration = DefaultSlotDuration
	}
	if o.SlotRequests > 0 {
		o.SlotDuration = 0
	}
	if o.Concurrency == 0 {
		o.Concurrency = plan.DefaultConcurrency
	}
	if o.RateFraction == 0 {
		o.RateFraction = DefaultRateFraction
	}
	if o.ProbeDuration == 0 {
		o.ProbeDuration = DefaultProbeDuration
	}
	if o.ProbeWarmup == 0 {
		o.ProbeWarmup = DefaultProbeWarmup
	}
	if o.Client.Timeout == 0 {
		o.Client.Timeout = plan.DefaultTimeout
	}
	if o.Name == "" {
		o.Name = "ladder-" + o.Target.Name
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o.validate()
}

func (o *Options) validate() error {
	switch {
	case len(o.Target.Rungs) == 0:
		return fmt.Errorf("target %q has no rungs: list each layer's entry point (rungs: [{layer, url}])", o.Target.Name)
	case o.Rounds < 1:
		return fmt.Errorf("rounds must be at least 1, got %d", o.Rounds)
	case o.SlotDuration < 0 || o.SlotRequests < 0:
		return errors.New("each turn's duration (-z) and requests (-n) must not be negative")
	case o.Concurrency < 1:
		return fmt.Errorf("concurrency (-c) must be at least 1, got %d", o.Concurrency)
	case o.Rate < 0:
		return fmt.Errorf("rate (-q) must not be negative, got %g", o.Rate)
	case o.RateFraction <= 0 || o.RateFraction > 1:
		return fmt.Errorf("rate fraction must be in (0, 1], got %g", o.RateFraction)
	case o.Closed && o.Rate > 0:
		return errors.New("give either a rate (-q, open loop) or --closed, not both")
	case o.ProbeDuration < 0 || o.ProbeWarmup < 0:
		return errors.New("probe durations must not be negative")
	}
	if err := plan.ValidateURL(o.Target.URL); err != nil {
		return fmt.Errorf("target %q: %w", o.Target.Name, err)
	}
	for _, r := range o.Target.Rungs {
		if err := plan.ValidateURL(r.URL); err != nil {
			return fmt.Errorf("target %q, rung %s: %w", o.Target.Name, r.Layer, err)
		}
	}
	return nil
}

// Outcome is what a ladder produced.
type Outcome struct {
	// Dir is the run directory ("" when Options.Out was empty).
	Dir      string
	Run      *results.Run
	Timeline *results.Timeline
	// Ladder is Run.Ladder.
	Ladder *results.Ladder
}

// Run measures the ladder and attributes the latency. Setup failures (a
// rung that does not answer 2xx, a token that cannot be had) are errors;
// per-request failures are data in the results. An interrupted ladder
// returns its Outcome (Run.Partial set) with runner.ErrInterrupted.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if err := o.complete(); err != nil {
		return nil, err
	}
	l, err := newLadderRun(ctx, &o)
	if err != nil {
		return nil, err
	}
	defer l.s.Close()
	if err := l.prepare(ctx); err != nil {
		return nil, err
	}
	return l.finish(l.measure(ctx))
}
