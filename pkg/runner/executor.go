package runner

import (
	"context"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/load"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Executor is where the load executes: this process (Local) today, pods
// in a cluster next. The orchestrator (Session) decides what to send and
// when, and keeps the record; an executor only sends it and says what it
// measured, in a form that merges exactly: a final result, per-second
// timeline points and the interval histograms of the HdrHistogram log
// (one per second, so per-pod logs add up to the whole).
type Executor interface {
	// Prepare readies the targets a session will name by index: their
	// token sources and requests. A token that cannot be had is a setup
	// error.
	Prepare(ctx context.Context, client plan.Client, targets []plan.Target) error
	// Probe sends one request to target i to fingerprint the backend; its
	// failure is data in the fingerprint.
	Probe(ctx context.Context, i int) results.TargetFingerprint
	// Execute runs one load phase. Per-request failures are data in the
	// result; an error means the phase could not run at all.
	Execute(ctx context.Context, ph Phase) (*Measured, error)
	// Close releases connections (or pods).
	Close() error
}

// Phase is one load phase of one prepared target.
type Phase struct {
	// Target is the index into the targets given to Prepare.
	Target int
	// Spec is the load to send.
	Spec load.Spec
	// HistogramLog, when set, receives the phase's interval histograms
	// in HdrHistogram log format. Default nil: no log.
	HistogramLog io.Writer
	// Progress, when set, is updated as requests complete.
	Progress *load.Progress
	// Intervals, when set, receives every closed second of the phase as
	// the executor collects it (load.WithIntervals; per pod in pods).
	Intervals func(load.Interval)
}

// Measured is what one phase produced.
type Measured struct {
	// Result is the engine's summary of the phase (Target and Iteration
	// are the session's to fill).
	Result results.Result
	// Series is the per-second timeline.
	Series []results.Point
	// Histogram is the phase's merged (coordinated-omission corrected)
	// latency histogram, in µs; nil when nothing completed.
	Histogram *hdr.Histogram
	// Unsent counts open-loop requests that were due but never sent.
	Unsent int64
	// Partial is true when the phase was cut short (interrupted).
	Partial bool
	// LogErr is why HistogramLog could not be written, if it could not.
	LogErr error
}
