// Package ladder measures where a stack's latency goes, instead of estimating it. It sends
// the same load to each layer's own entry point (a rung) from the inside
// out — backend, rbac proxy, auth service, gateway — and to the target's
// own URL (the end-to-end slot), interleaving them round after round in
// a balanced order (Schedule) so that drift, and what a turn inherits from
// the one before it, hit every rung alike.
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
	// DefaultTurnWarmup is the unrecorded load before each turn. Without it
	// a rung's first requests met a path the turns before it had left
	// idle (a gateway's upstream connections closed, its workers asleep)
	// while a slot right after a turn on the same path met it warm: the
	// cold turn's tail then exceeded the warm one's by the cold start.
	DefaultTurnWarmup = 250 * time.Millisecond
	// MinProbeSuccess is the success rate below which a rung is refused:
	// a ladder of 401s or timeouts would attribute the error path.
	MinProbeSuccess = 0.9
)

// Options configure one ladder.
type Options struct {
	// Plan carries the load and client settings through the plan layer's
	// defaults and checks (plan.Complete and plan.Validate, run once by
	// Run, which completes it in place). Required. It gives the Targets,
	// of which Target is measured; the Client (TLS, timeout); each turn's
	// Load.Requests or Load.Duration (default DefaultSlotDuration, not
	// the plan's request count; Duration wins over Requests, as in hey);
	// Load.Concurrency, the closed loop's workers, the open loop's bound
	// on requests in flight and the capacity probe's (default
	// plan.DefaultConcurrency); and Load.Rate, the open loop's total rate
	// on every rung (default 0: RateFraction of the weakest rung's
	// capacity). Its iterations, warm-up, delay and SLO are not used.
	Plan *plan.Plan
	// Target names the plan's target: its URL (the end-to-end slot),
	// Layers from the client inwards, Rungs (each layer's own entry
	// point, at least one), token, headers, method and body. Default "":
	// the only target with rungs.
	Target string
	// Rounds of the interleaved rungs. Default DefaultRounds.
	Rounds int
	// RateFraction of the weakest capacity gives the rate. Default 0.5.
	RateFraction float64
	// Closed runs every turn as a closed loop instead. Default false.
	Closed bool
	// ProbeDuration and ProbeWarmup time each rung's capacity probe.
	// Defaults DefaultProbeDuration and DefaultProbeWarmup.
	ProbeDuration time.Duration
	ProbeWarmup   time.Duration
	// TurnWarmup is the unrecorded load (the turn's own rate or workers)
	// each slot gets right before each of its turns, so that every rung is
	// measured in the steady state its load keeps, whatever ran before it.
	// Default DefaultTurnWarmup; negative: none.
	TurnWarmup time.Duration
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
	// Gateways, when set, are read around every turn of a rung that
	// enters through them (the full stack's), so its results carry the
	// gateway's own account beside the ladder's.
	Gateways observe.GatewayReaders
	// Lab is recorded in run.json.
	Lab *results.Lab
	// Faults, when set, reads the lab's faults of the ladder's window
	// into run.json.
	Faults runner.FaultLog
	// Executor runs the load. Default runner.NewLocal(): this process.
	Executor runner.Executor
	// Sinks take the finished ladder once its run.json is written (the
	// CLI's: summary.md, ReportFile, the history index, publishing).
	// Default none.
	Sinks []runner.Sink
	// Watch, when set, sees every turn live (the CLI's --live).
	Watch runner.Watcher
}

// complete fills the ladder's defaults and the plan's (once), checks
// both, and returns the target to measure.
func (o *Options) complete() (plan.Target, error) {
	if o.Plan == nil {
		return plan.Target{}, errors.New("no plan: give the ladder a plan with its target and load")
	}
	o.defaults()
	if err := o.validate(); err != nil {
		return plan.Target{}, err
	}
	p := o.Plan
	if l := &p.Load; l.Requests == 0 && l.Duration == 0 && !given(p, plan.FieldRequests, plan.FieldDuration) {
		l.Duration = plan.Duration(DefaultSlotDuration)
	}
	p.Complete()
	if err := o.turns().Validate(); err != nil {
		return plan.Target{}, err
	}
	if p.Load.Duration > 0 {
		p.Load.Requests = 0
	}
	t, err := FindTarget(p, o.Target)
	switch {
	case err != nil && p.Source != "":
		return t, fmt.Errorf("%s: %w", p.Source, err)
	case err != nil:
		return t, err
	case len(t.Rungs) == 0:
		return t, fmt.Errorf("target %q has no rungs: list each layer's entry point (rungs: [{layer, url}])", t.Name)
	}
	if o.Name == "" {
		o.Name = "ladder-" + t.Name
	}
	if g := o.Gateway; g != nil && g.Gateway == "" && len(t.Layers) > 0 {
		g.Gateway = t.Layers[0]
	}
	return t, nil
}

func (o *Options) defaults() {
	if o.Rounds == 0 {
		o.Rounds = DefaultRounds
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
	if o.TurnWarmup == 0 {
		o.TurnWarmup = DefaultTurnWarmup
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// given reports whether any of fields was given (plan.Given).
func given(p *plan.Plan, fields ...string) bool {
	for _, f := range fields {
		if _, ok := p.Given[f]; ok {
			return true
		}
	}
	return false
}

// turns is the plan as the turns run it, for the plan layer's checks: an
// open loop unless Closed. A rate not given is chosen after the probes
// (RateFraction of a measured capacity, so positive); any positive rate
// stands for it here, so that the open loop's rules apply, not the
// closed loop's (which would refuse fewer requests than workers).
func (o *Options) turns() *plan.Plan {
	q := *o.Plan
	if !o.Closed && q.Load.Rate == 0 {
		q.Load.Rate = 1
	}
	return &q
}

// validate checks what only the ladder has; the plan layer checks the
// load and the client.
func (o *Options) validate() error {
	switch {
	case o.Rounds < 1:
		return fmt.Errorf("rounds must be at least 1, got %d", o.Rounds)
	case o.RateFraction <= 0 || o.RateFraction > 1:
		return fmt.Errorf("rate fraction must be in (0, 1], got %g", o.RateFraction)
	case o.Closed && o.Plan.Load.Rate > 0:
		return errors.New("give either a rate (-q, open loop) or --closed, not both")
	case o.ProbeDuration < 0 || o.ProbeWarmup < 0:
		return errors.New("probe durations must not be negative")
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
	t, err := o.complete()
	if err != nil {
		return nil, err
	}
	l, err := newLadderRun(ctx, &o, t)
	if err != nil {
		return nil, err
	}
	defer l.s.Close()
	if err := l.prepare(ctx); err != nil {
		return nil, err
	}
	return l.finish(ctx, l.measure(ctx))
}
