// Package importer turns other load testers' text output into authbench
// runs, so that report, compare and history treat them like any other.
//
// Nothing is invented: a figure the tool does not print is left zero and
// named in Result.Unavailable, which reports print as "not measured".
//
//   - hey prints: total time, slowest, fastest, average, requests/sec,
//     p10/p25/p50/p75/p90/p95/p99, per-phase means (DNS+dialup, DNS lookup,
//     request write, response wait, response read) with fastest/slowest
//     (except DNS+dialup, whose range hey misprints as the overall one),
//     responses per status code and errors by message. Unavailable: stddev,
//     p99.9, p99.99, the TLS phase, phase counts, the DNS+dialup range,
//     a timeline, a histogram, the start time, the URL and the concurrency.
//   - wrk --latency prints: URL, connections, mean/stddev/max latency,
//     p50/p75/p90/p99, completed requests and duration, socket errors
//     (connect, read, write, timeout), the count of non-2xx/3xx responses
//     and requests/sec. Unavailable: min, p95, p99.9, p99.99, phases,
//     per-code status counts (the failures are counted under the status
//     key "non-2xx/3xx"), a timeline, a histogram and the start time.
//
// One tool output is one iteration; a file may hold several outputs one
// after the other, as the migration reports' .log files do.
package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// Tool names recorded in results.Import.
const (
	ToolHey = "hey"
	ToolWrk = "wrk"
)

// Hey converts hey outputs (one per iteration, in file order) into a run
// named name with one target of the same name.
func Hey(files []string, name string) (*results.Run, error) {
	return importFiles(ToolHey, files, name, func(data []byte, file string) ([]parsed, error) {
		return parseHey(data, file)
	})
}

// Wrk converts wrk --latency outputs into a run, as Hey does.
func Wrk(files []string, name string) (*results.Run, error) {
	return importFiles(ToolWrk, files, name, func(data []byte, file string) ([]parsed, error) {
		return parseWrk(data, file)
	})
}

// parsed is one tool output: a result and what it says about the plan.
type parsed struct {
	result      results.Result
	url         string
	concurrency int
	duration    plan.Duration
}

func importFiles(tool string, files []string, name string, parse func([]byte, string) ([]parsed, error)) (*results.Run, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("importing %s output: no file given", tool)
	}
	if name == "" {
		return nil, fmt.Errorf("importing %s output: a run name is required (--name)", tool)
	}
	var all []parsed
	h := sha256.New()
	for _, f := range files {
		data, err := boundedio.ReadFile(f, boundedio.Import)
		if err != nil {
			return nil, fmt.Errorf("importing %s output: %w", tool, err)
		}
		h.Write(data)
		ps, err := parse(data, f)
		if err != nil {
			return nil, err
		}
		if len(ps) == 0 {
			return nil, fmt.Errorf("importing %s output: %s: no %s output found", tool, f, tool)
		}
		all = append(all, ps...)
	}
	run := &results.Run{
		SchemaVersion: results.SchemaVersion,
		Name:          name,
		// The same files give the same ID, so importing twice is idempotent
		// in the history index.
		ID:       "import-" + tool + "-" + hex.EncodeToString(h.Sum(nil))[:12],
		Imported: &results.Import{Tool: tool, Files: files},
		Plan:     planOf(name, all),
	}
	for i, p := range all {
		r := p.result
		r.Target, r.Iteration, r.Model = name, i+1, plan.Closed
		run.Results = append(run.Results, r)
	}
	return run, nil
}

// planOf records only what the outputs state; requests per iteration only
// when every output counted the same number.
func planOf(name string, ps []parsed) plan.Plan {
	p := plan.Plan{Name: name, Load: plan.Load{Iterations: len(ps)}}
	t := plan.Target{Name: name, URL: ps[0].url}
	p.Targets = []plan.Target{t}
	p.Load.Concurrency = ps[0].concurrency
	p.Load.Duration = ps[0].duration
	same := true
	for _, x := range ps[1:] {
		same = same && x.result.Requests == ps[0].result.Requests
		if x.concurrency != p.Load.Concurrency {
			p.Load.Concurrency = 0
		}
		if x.duration != p.Load.Duration {
			p.Load.Duration = 0
		}
	}
	if same && p.Load.Duration == 0 {
		p.Load.Requests = ps[0].result.Requests
	}
	return p
}

// errBadLine names a file, line and field, as the project's bad-input
// errors do.
func errBadLine(tool, file string, line int, field string, err error) error {
	return fmt.Errorf("importing %s output: %s:%d: %s: %w", tool, file, line, field, err)
}

var (
	errNoValue    = errors.New("no value")
	errNoRequests = errors.New("the output counts no request (no status code or error distribution): is the file cut short?")
)
