package demo

import (
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/ladder"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
)

// Outcome is what the demo produced, step by step; a step that did not
// run (or failed) leaves its field nil.
type Outcome struct {
	Closed   *ClosedStep
	Properly *ProperStep
	Limit    *LimitStep
	// RateLimit is step 3's 3x-oauth run, when the demo runs 3x-oauth.
	RateLimit *RateLimitStep
	// Ladders are step 4's, one per stack.
	Ladders []*ladder.Outcome
	// Report is the HTML page's path (step 5).
	Report string
	// Verdict is what the demo concludes, as printed.
	Verdict []string
	// Steps are the steps' wall times, in order.
	Steps []StepTime
}

// StepTime is one step's wall time.
type StepTime struct {
	N       int
	Title   string
	Seconds float64
}

// ClosedStep is step 1: the migration reports' closed-loop comparison.
type ClosedStep struct {
	Run        *runner.Outcome
	Comparison *analyze.Comparison
	// Saturation are the run's saturation findings, one per stack whose
	// closed loop ran at its capacity.
	Saturation []results.Finding
}

// ProperStep is step 2: capacities under the SLO, then latency at one
// open-loop rate below both.
type ProperStep struct {
	Capacity *runner.CapacityOutcome
	// Rate is the open-loop rate of Open (and of steps 3 and 4).
	Rate       float64
	Open       *runner.Outcome
	Comparison *analyze.Comparison
}

// LimitStep is step 3: a CPU limit on the auth proxy, and its removal.
type LimitStep struct {
	Limit lab.Limit
	// Stack and Target are what the limited component serves.
	Stack, Target string
	// Rate is step 2's open-loop rate, at which Limited and Lifted ran.
	Rate float64
	// AuthzErrors is the finding naming the gateway's 403s after failed
	// or timed-out ext_authz calls in Limited (nil: none);
	// LiftedAuthzErrors counts those calls once the limit was lifted.
	AuthzErrors       *results.Finding
	LiftedAuthzErrors int64
	// Limited ran at the step-2 rate under the limit, Lifted after it.
	Limited, Lifted *runner.Outcome
	// Capacity is the stack's capacity under the limit.
	Capacity *runner.CapacityOutcome
	// Throttling is the finding that names the limited component (nil
	// when none did).
	Throttling *results.Finding
}
