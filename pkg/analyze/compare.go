package analyze

import (
	"errors"
	"fmt"

	"github.com/authbench/authbench/pkg/results"
)

// CompareOptions configures Compare. The zero value is usable.
type CompareOptions struct {
	// Baseline names the side every other side is compared with: a side
	// label, a run name, a run ID or a target name that selects exactly one
	// side. Default: the first side.
	Baseline string
	// Files are what each run's directory holds (its histograms, for the
	// merged distribution and the bootstrap, and its timeline, for
	// charts), index for index with runs, as the caller read them
	// (store.ReadHistograms, store.ReadTimeline). Default: none, and the
	// comparison uses run.json figures only.
	Files []RunFiles
	// Resamples is the number of bootstrap resamples. Default 1000.
	Resamples int
	// Seed makes the bootstrap deterministic. Default 1.
	Seed uint64
	// Confidence is the level of the confidence intervals and tests.
	// Default 0.95.
	Confidence float64
}

// Defaults applied to CompareOptions.
const (
	DefaultResamples  = 1000
	DefaultSeed       = 1
	DefaultConfidence = 0.95
)

func (o *CompareOptions) complete() {
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = DefaultConfidence
	}
}

// Comparison is everything a comparison report shows. Sides[Baseline] is
// the side the others are measured against; every Delta slice is indexed
// like Sides, with the baseline's entry left zero.
type Comparison struct {
	Sides    []*Side `json:"sides"`
	Baseline int     `json:"baseline"`
	// WithinRun is true when the sides are the targets of one run.
	WithinRun bool `json:"within_run"`
	// LatencySource says where the headline latencies come from: "merged
	// histograms" when every side has its .hlog files, else "mean of
	// iterations" for every side, so that sides are computed alike.
	LatencySource string `json:"latency_source"`
	// Confidence is the level used by the tests, e.g. 0.95.
	Confidence float64 `json:"confidence"`
	// Warnings say why the sides may not be comparable; reports put them
	// first. Notes are context that does not invalidate the comparison.
	Warnings []Warning `json:"warnings,omitempty"`
	Notes    []Warning `json:"notes,omitempty"`
	// Declared is what each side declares as different from the baseline
	// on purpose (its layers under test): context, not a warning.
	Declared []Declared `json:"declared,omitempty"`
	// Config is the configuration side by side, differences flagged.
	Config []ConfigRow `json:"config"`
	// Latency rows: P50, P75, P90, P95, P99 (P99.9 when every side has it),
	// mean and max.
	Latency []Metric `json:"latency"`
	// Throughput rows: average, minimum and maximum per iteration, and the
	// total time of all iterations.
	Throughput []Metric `json:"throughput"`
	// SuccessRate compares the fraction of successful requests.
	SuccessRate Metric `json:"success_rate"`
	// Iterations holds per-iteration side-by-side tables (P50, P95, P99,
	// throughput).
	Iterations []IterationTable `json:"iterations"`
	// Resources compares components matched across sides by role or name.
	Resources []ResourceRow `json:"resources,omitempty"`
	// Saturation holds the Little's-law check for each side (nil entries
	// where it does not apply).
	Saturation []*Saturation `json:"saturation"`
}

// Warning is one comparability problem or note.
type Warning struct {
	// Kind is a stable identifier: backend, load-model, concurrency, rate,
	// host, cpus, requests, date, imported, partial, fingerprint, saturation.
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// BaselineSide returns the baseline.
func (c *Comparison) BaselineSide() *Side { return c.Sides[c.Baseline] }

// Compare compares two or more runs, or the targets of a single run. Each
// side is one run x target; per-request failures are data, and only
// unusable input (fewer than two sides, an unknown baseline, an unreadable
// histogram) is an error.
func Compare(runs []*results.Run, opts CompareOptions) (*Comparison, error) {
	opts.complete()
	if len(runs) == 0 {
		return nil, errors.New("comparing runs: no run given")
	}
	if len(opts.Files) != 0 && len(opts.Files) != len(runs) {
		return nil, fmt.Errorf("comparing runs: files of %d runs for %d runs", len(opts.Files), len(runs))
	}
	sides, err := buildSides(runs, opts.Files)
	if err != nil {
		return nil, err
	}
	base, err := pickBaseline(sides, opts.Baseline)
	if err != nil {
		return nil, err
	}
	c := &Comparison{
		Sides:      sides,
		Baseline:   base,
		WithinRun:  len(runs) == 1,
		Confidence: opts.Confidence,
	}
	c.LatencySource = chooseLatencySource(sides)
	c.Config = configRows(sides, base)
	c.Declared = declarations(sides, base)
	c.Warnings, c.Notes = comparability(sides, base, c.WithinRun)
	c.Latency = latencyMetrics(sides, base, c.LatencySource == SourceMerged, opts)
	c.Throughput = throughputMetrics(sides, base, opts)
	c.SuccessRate = successMetric(sides, base, opts)
	c.Iterations = iterationTables(sides)
	c.Resources = resourceRows(sides, base)
	c.Saturation = saturation(sides)
	c.Notes = append(c.Notes, saturationNotes(sides, c.Saturation)...)
	c.Notes = append(c.Notes, throttlingNotes(sides, c.Resources)...)
	return c, nil
}
