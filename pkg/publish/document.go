// Package publish sends runs to OpenSearch or Elasticsearch, one document
// per target x iteration, and reads them back as history. Each document
// carries the iteration's HdrHistogram (V2, compressed, base64, the
// library's own encoding) so that any group of documents merges exactly.
package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/redact"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// Document is one target x iteration of one run, as indexed.
type Document struct {
	// ID is deterministic (run id, target, iteration): publishing a run
	// again finds its documents already there.
	ID        string    `json:"doc_id"`
	Timestamp time.Time `json:"@timestamp"`

	RunID            string    `json:"run_id"`
	RunName          string    `json:"run_name"`
	RunStart         time.Time `json:"run_start"`
	RunEnd           time.Time `json:"run_end,omitzero"`
	AuthbenchVersion string    `json:"authbench_version,omitempty"`
	Partial          bool      `json:"partial,omitempty"`
	ImportedFrom     string    `json:"imported_from,omitempty"`

	// Kind is "capacity" (results.KindCapacity) for the steps of a
	// capacity search, "" for the iterations of one load.
	Kind string `json:"kind,omitempty"`
	// Capacity is set on a capacity search's documents: the step's offered
	// rate and verdict, and what the target's search found.
	Capacity *CapacityStep `json:"capacity,omitempty"`

	Target     string   `json:"target"`
	URL        string   `json:"url,omitempty"`
	Iteration  int      `json:"iteration"`
	Iterations int      `json:"iterations"`
	Layers     []string `json:"layers,omitempty"`

	Model       string  `json:"model"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate,omitempty"`

	Environment Environment `json:"environment"`
	// Plan is the run's plan as run.json holds it (secrets never are).
	Plan json.RawMessage `json:"plan,omitempty"`
	// Findings and SLO are the run's, restricted to this target.
	Findings []results.Finding  `json:"findings,omitempty"`
	SLO      []results.SLOCheck `json:"slo,omitempty"`
	SLOPass  *bool              `json:"slo_pass,omitempty"`
	LabStack []string           `json:"lab_stacks,omitempty"`

	Figures Figures `json:"figures"`
	// Histogram is the iteration's .hlog intervals merged, encoded as
	// HdrHistogram V2 compressed base64; HistogramPerMs converts its
	// values to milliseconds. Empty when the run has no .hlog.
	Histogram      string  `json:"histogram,omitempty"`
	HistogramPerMs float64 `json:"histogram_units_per_ms,omitempty"`
}

// CapacityStep is a capacity search's step (Document.Iteration is its
// number) with the search's outcome for the target.
type CapacityStep struct {
	OfferedRPS   float64  `json:"offered_rps"`
	Pass         bool     `json:"step_pass"`
	CapacityRPS  float64  `json:"capacity_rps"`
	FirstFailRPS float64  `json:"first_fail_rps,omitempty"`
	SustainedRPS float64  `json:"sustained_rps,omitempty"`
	SLO          plan.SLO `json:"slo"`
}

// Environment is where the run happened and the backend fingerprint.
type Environment struct {
	Host          string `json:"host,omitempty"`
	OS            string `json:"os,omitempty"`
	Arch          string `json:"arch,omitempty"`
	CPUs          int    `json:"cpus,omitempty"`
	GoVersion     string `json:"go_version,omitempty"`
	BackendServer string `json:"backend_server,omitempty"`
	BackendSHA256 string `json:"backend_body_sha256,omitempty"`
	BackendError  string `json:"backend_error,omitempty"`
}

// Figures are the iteration's measurements.
type Figures struct {
	Requests      int64                    `json:"requests"`
	Successes     int64                    `json:"successes"`
	SuccessRate   float64                  `json:"success_rate"`
	ThroughputRPS float64                  `json:"throughput_rps"`
	GoodputRPS    float64                  `json:"goodput_rps"`
	DurationS     float64                  `json:"duration_s"`
	Latency       results.Latency          `json:"latency_ms"`
	Status        map[string]int64         `json:"status,omitempty"`
	Errors        map[string]int64         `json:"errors,omitempty"`
	Components    []results.ComponentUsage `json:"components,omitempty"`
	Unavailable   []string                 `json:"unavailable,omitempty"`
	// Gateway is the gateway's own account of the iteration: counts,
	// component names and times, never its endpoint.
	Gateway *results.Gateway `json:"gateway,omitempty"`
	// GatewayAnswers split the responses the gateway made itself by class.
	GatewayAnswers map[string]int64 `json:"gateway_answers,omitempty"`
}

// DocID is the document id of a run's target x iteration.
func DocID(runID, target string, iteration int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d", runID, target, iteration))
	return hex.EncodeToString(sum[:20])
}

// Documents reads a run directory (with pkg/store) and builds its
// documents, in the order of run.json's results.
func Documents(runDir string) ([]Document, error) {
	run, err := store.Read(runDir)
	if err != nil {
		return nil, err
	}
	plan, err := json.Marshal(run.Plan)
	if err != nil {
		return nil, fmt.Errorf("encoding plan of %s: %w", runDir, err)
	}
	id := run.ID
	if id == "" {
		id = filepath.Base(store.Dir(runDir))
	}
	iters := map[string]int{}
	for _, r := range run.Results {
		iters[r.Target]++
	}
	searches, err := capacitySearches(run, runDir)
	if err != nil {
		return nil, err
	}
	docs := make([]Document, 0, len(run.Results))
	for _, r := range run.Results {
		d := baseDocument(run, id, r.Target)
		d.Kind, d.Capacity = run.Kind, capacityStep(run, searches, r)
		d.Plan, d.Iterations = plan, iters[r.Target]
		d.ID, d.Iteration = DocID(id, r.Target, r.Iteration), r.Iteration
		d.Timestamp = r.Start
		if d.Timestamp.IsZero() {
			d.Timestamp = run.Start
		}
		d.Figures = figures(r)
		if r.HistogramFile != "" {
			h, err := store.ReadRunHistogram(runDir, r.HistogramFile)
			if err != nil {
				return nil, fmt.Errorf("publishing %s: %w", runDir, err)
			}
			if d.Histogram, err = EncodeHistogram(h); err != nil {
				return nil, fmt.Errorf("publishing %s: encoding %s: %w", runDir, r.HistogramFile, err)
			}
			d.HistogramPerMs = analyze.UnitsPerMs(h, r.Latency)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// capacitySearches reads a capacity run's searches by target (nil for
// other runs; empty when the search was interrupted before writing them).
func capacitySearches(run *results.Run, runDir string) (map[string]results.CapacitySearch, error) {
	if run.Kind != results.KindCapacity {
		return nil, nil
	}
	ss, err := ReadCapacitySearches(runDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("publishing %s: %w", runDir, err)
	}
	out := map[string]results.CapacitySearch{}
	for _, s := range ss {
		out[s.Target] = s
	}
	return out, nil
}

func capacityStep(run *results.Run, searches map[string]results.CapacitySearch, r results.Result) *CapacityStep {
	if run.Kind != results.KindCapacity {
		return nil
	}
	s := searches[r.Target]
	c := &CapacityStep{OfferedRPS: r.TargetRPS, Pass: s.AtCapacity(r.Iteration), CapacityRPS: s.Capacity,
		FirstFailRPS: s.FirstFail, SustainedRPS: s.Sustained, SLO: s.SLO}
	for _, st := range s.Steps {
		if st.N == r.Iteration {
			c.OfferedRPS, c.Pass = st.Offered, st.Pass
		}
	}
	return c
}

func baseDocument(run *results.Run, id, target string) Document {
	d := Document{
		RunID: id, RunName: run.Name, RunStart: run.Start, RunEnd: run.End,
		AuthbenchVersion: run.AuthbenchVersion, Partial: run.Partial, Target: target,
		Model: string(run.Plan.Load.Model()), Concurrency: run.Plan.Load.Concurrency, Rate: run.Plan.Load.Rate,
		Environment: Environment{Host: run.Environment.Host, OS: run.Environment.OS, Arch: run.Environment.Arch,
			CPUs: run.Environment.CPUs, GoVersion: run.Environment.GoVersion},
	}
	if run.Imported != nil {
		d.ImportedFrom = run.Imported.Tool
	}
	for _, r := range run.Results {
		if r.Target == target && r.Model != "" {
			d.Model = string(r.Model)
			break
		}
	}
	for _, t := range run.Plan.Targets {
		if t.Name == target {
			d.URL, d.Layers = t.URL, t.Layers
		}
	}
	for _, f := range run.Environment.Targets {
		if f.Target == target {
			d.Environment.BackendServer, d.Environment.BackendSHA256, d.Environment.BackendError = f.Server, f.BodySHA256, f.Error
			if d.URL == "" {
				d.URL = f.URL
			}
		}
	}
	// The document is a sink of its own: a run.json written before its
	// fields were redacted is published redacted.
	d.URL, d.Environment.BackendError = redact.URL(d.URL), redact.Text(d.Environment.BackendError)
	d.Environment.BackendServer = redact.Header("Server", d.Environment.BackendServer)
	if run.Lab != nil {
		d.LabStack = run.Lab.Stacks
	}
	addVerdicts(&d, run, target)
	return d
}

func addVerdicts(d *Document, run *results.Run, target string) {
	for _, f := range run.Findings {
		if f.Target == "" || f.Target == target {
			d.Findings = append(d.Findings, f)
		}
	}
	for _, s := range run.SLO {
		if s.Target == target {
			d.SLO = append(d.SLO, s)
		}
	}
	if len(d.SLO) > 0 {
		pass := !slices.ContainsFunc(d.SLO, func(s results.SLOCheck) bool { return !s.Pass })
		d.SLOPass = &pass
	}
}

func figures(r results.Result) Figures {
	f := Figures{
		Requests: r.Requests, Successes: r.Successes, SuccessRate: r.SuccessRate,
		ThroughputRPS: r.ThroughputRPS, GoodputRPS: r.GoodputRPS, DurationS: r.DurationS,
		Latency: r.Latency, Status: r.Status, Errors: r.Errors, Unavailable: r.Unavailable,
		Gateway: r.Gateway, GatewayAnswers: r.Answers,
	}
	// Per-second samples are for charts of one run; they would bloat every
	// document of a team's history.
	for _, c := range r.Components {
		c.Samples = nil
		f.Components = append(f.Components, c)
	}
	return f
}
