package analyze

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Side is one run x target with its figures aggregated over iterations.
type Side struct {
	// Label names the side in reports: the run name, the target name
	// within one run, or "run/target" when runs have several targets.
	Label   string `json:"label"`
	RunName string `json:"run_name"`
	RunID   string `json:"run_id"`
	Target  string `json:"target"`
	Dir     string `json:"dir,omitempty"`
	// Run is the run the side comes from.
	Run *results.Run `json:"-"`
	// Results are the side's iterations in order.
	Results []results.Result `json:"-"`
	// Latency is the headline distribution (see Comparison.LatencySource).
	Latency results.Latency `json:"latency_ms"`
	// IterationMean is the per-iteration figures averaged (Max: the max).
	IterationMean results.Latency `json:"iteration_mean_ms"`
	// Throughput spread over iterations, in requests per second.
	Throughput Spread `json:"throughput_rps"`
	// TotalTimeS is the sum of iteration durations.
	TotalTimeS  float64 `json:"total_time_s"`
	Requests    int64   `json:"requests"`
	Successes   int64   `json:"successes"`
	Failures    int64   `json:"failures"`
	SuccessRate float64 `json:"success_rate"`
	// Status and Errors are summed over iterations.
	Status       map[string]int64  `json:"status,omitempty"`
	Errors       map[string]int64  `json:"errors,omitempty"`
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	// Load parameters from the plan (Concurrency 0: unknown, e.g. imported).
	Model       plan.Model `json:"model"`
	Concurrency int        `json:"concurrency"`
	Rate        float64    `json:"rate,omitempty"`
	// Fingerprint is the backend probe for this target, if recorded.
	Fingerprint *results.TargetFingerprint `json:"fingerprint,omitempty"`
	// Layers is the target's architecture, client inwards.
	Layers []string `json:"layers,omitempty"`
	// Unavailable lists the fields the source did not measure (imported runs).
	Unavailable []string `json:"unavailable,omitempty"`
	// Hist is the merged histogram of all iterations (nil without .hlog);
	// HistPerMs converts its values to milliseconds (value / HistPerMs).
	Hist      *hdrhistogram.Histogram `json:"-"`
	HistPerMs float64                 `json:"-"`
	// IterHists are the per-iteration histograms, index-aligned with Results.
	IterHists []*hdrhistogram.Histogram `json:"-"`
	// Timeline is the per-second series of this target, one per iteration.
	Timeline []results.Series `json:"-"`
}

// Spread summarises per-iteration values.
type Spread struct {
	Mean   float64 `json:"mean"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Stddev float64 `json:"stddev"`
}

// Imported reports whether the side was converted from another tool.
func (s *Side) Imported() bool { return s.Run != nil && s.Run.Imported != nil }

// HasHistogram reports whether the side has a merged histogram.
func (s *Side) HasHistogram() bool { return s.Hist != nil && s.Hist.TotalCount() > 0 }

// Measured reports whether field (a Result.Unavailable name such as
// "p999") was measured for this side.
func (s *Side) Measured(field string) bool { return !slices.Contains(s.Unavailable, field) }

// buildSides makes one side per run x target: for a single run, its
// targets; for several runs, every target of every run.
func buildSides(runs []*results.Run, files []RunFiles) ([]*Side, error) {
	var sides []*Side
	multiTarget := false
	for i, run := range runs {
		if run == nil {
			return nil, fmt.Errorf("comparing runs: run %d is missing", i+1)
		}
		targets := targetsOf(run)
		if len(targets) > 1 {
			multiTarget = true
		}
		for _, t := range targets {
			s := newSide(run, t)
			if len(files) > 0 {
				attachFiles(s, run, files[i])
			}
			sides = append(sides, s)
		}
	}
	if len(sides) < 2 {
		return nil, errors.New("comparing runs: need two runs, or one run with two targets")
	}
	labelSides(sides, len(runs) == 1, multiTarget)
	for _, s := range sides {
		s.aggregate()
	}
	return sides, nil
}

// targetsOf lists the targets of a run in first-appearance order.
func targetsOf(run *results.Run) []string {
	var out []string
	for _, r := range run.Results {
		if !slices.Contains(out, r.Target) {
			out = append(out, r.Target)
		}
	}
	return out
}

func newSide(run *results.Run, target string) *Side {
	s := &Side{
		RunName:     run.Name,
		RunID:       run.ID,
		Target:      target,
		Run:         run,
		Model:       run.Plan.Load.Model(),
		Concurrency: run.Plan.Load.Concurrency,
		Rate:        run.Plan.Load.Rate,
	}
	for _, r := range run.Results {
		if r.Target == target {
			s.Results = append(s.Results, r)
		}
	}
	if len(s.Results) > 0 && s.Results[0].Model != "" {
		s.Model = s.Results[0].Model
	}
	for i := range run.Environment.Targets {
		if fp := &run.Environment.Targets[i]; fp.Target == target {
			s.Fingerprint = fp
		}
	}
	for _, t := range run.Plan.Targets {
		if t.Name == target {
			s.Layers = t.Layers
		}
	}
	for _, r := range s.Results {
		for _, u := range r.Unavailable {
			if !slices.Contains(s.Unavailable, u) {
				s.Unavailable = append(s.Unavailable, u)
			}
		}
	}
	return s
}

// labelSides names sides as briefly as stays unambiguous.
func labelSides(sides []*Side, withinRun, multiTarget bool) {
	for _, s := range sides {
		switch {
		case withinRun:
			s.Label = s.Target
		case multiTarget:
			s.Label = s.RunName + "/" + s.Target
		default:
			s.Label = s.RunName
		}
		if s.Label == "" {
			s.Label = s.RunID
		}
	}
	seen := map[string]int{}
	for _, s := range sides {
		seen[s.Label]++
	}
	for _, s := range sides {
		if seen[s.Label] > 1 {
			s.Label = disambiguate(s)
		}
	}
	// Still equal (same name, same day): number them.
	count := map[string]int{}
	for _, s := range sides {
		count[s.Label]++
		if count[s.Label] > 1 {
			s.Label = fmt.Sprintf("%s #%d", s.Label, count[s.Label])
		}
	}
}

func disambiguate(s *Side) string {
	if !s.Run.Start.IsZero() {
		return s.Label + " (" + s.Run.Start.UTC().Format("2006-01-02 15:04") + ")"
	}
	if s.RunID != "" {
		return s.Label + " (" + shortID(s.RunID) + ")"
	}
	return s.Label
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// pickBaseline finds the side named by name, or 0 when name is empty.
func pickBaseline(sides []*Side, name string) (int, error) {
	if name == "" {
		return 0, nil
	}
	match := func(eq func(*Side) bool) []int {
		var idx []int
		for i, s := range sides {
			if eq(s) {
				idx = append(idx, i)
			}
		}
		return idx
	}
	tries := []func(*Side) bool{
		func(s *Side) bool { return s.Label == name },
		func(s *Side) bool { return s.RunName == name },
		func(s *Side) bool { return s.RunID == name || (len(name) >= 6 && strings.HasPrefix(s.RunID, name)) },
		func(s *Side) bool { return s.Target == name },
	}
	for _, eq := range tries {
		switch idx := match(eq); len(idx) {
		case 0:
			continue
		case 1:
			return idx[0], nil
		default:
			return 0, fmt.Errorf("baseline %q matches %d sides; use one of: %s", name, len(idx), labels(sides))
		}
	}
	return 0, fmt.Errorf("baseline %q matches no side; use one of: %s", name, labels(sides))
}

func labels(sides []*Side) string {
	var l []string
	for _, s := range sides {
		l = append(l, fmt.Sprintf("%q", s.Label))
	}
	return strings.Join(l, ", ")
}

// aggregate sums counts and averages iteration figures.
func (s *Side) aggregate() {
	s.Status = map[string]int64{}
	s.Errors = map[string]int64{}
	s.ErrorSamples = map[string]string{}
	var rps []float64
	for _, r := range s.Results {
		s.Requests += r.Requests
		s.Successes += r.Successes
		s.TotalTimeS += r.DurationS
		rps = append(rps, r.ThroughputRPS)
		for k, v := range r.Status {
			s.Status[k] += v
		}
		for k, v := range r.Errors {
			s.Errors[k] += v
		}
		for k, v := range r.ErrorSamples {
			if _, ok := s.ErrorSamples[k]; !ok {
				s.ErrorSamples[k] = v
			}
		}
	}
	s.Failures = s.Requests - s.Successes
	if s.Requests > 0 {
		s.SuccessRate = float64(s.Successes) / float64(s.Requests)
	}
	s.Throughput = spread(rps)
	s.IterationMean = meanLatency(s.Results)
	s.Latency = s.IterationMean
}

// meanLatency averages iteration latencies; the mean is request-weighted so
// it equals the mean over all requests, min and max are extremes.
func meanLatency(rs []results.Result) results.Latency {
	var out results.Latency
	if len(rs) == 0 {
		return out
	}
	n := float64(len(rs))
	var weighted, weight float64
	out.Min = math.Inf(1)
	for _, r := range rs {
		l := r.Latency
		out.P50 += l.P50 / n
		out.P75 += l.P75 / n
		out.P90 += l.P90 / n
		out.P95 += l.P95 / n
		out.P99 += l.P99 / n
		out.P999 += l.P999 / n
		out.P9999 += l.P9999 / n
		out.Stddev += l.Stddev / n
		out.Max = max(out.Max, l.Max)
		out.Min = min(out.Min, l.Min)
		w := float64(r.Requests)
		if w == 0 {
			w = 1
		}
		weighted += l.Mean * w
		weight += w
	}
	out.Mean = weighted / weight
	return out
}

// spread summarises values; the stddev is the sample standard deviation.
func spread(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	sp := Spread{Min: v[0], Max: v[0]}
	for _, x := range v {
		sp.Mean += x / float64(len(v))
		sp.Min = min(sp.Min, x)
		sp.Max = max(sp.Max, x)
	}
	sp.Stddev = math.Sqrt(sampleVariance(v))
	return sp
}
