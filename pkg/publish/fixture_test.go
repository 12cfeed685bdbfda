package publish

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// fixtureRun writes a run directory as the engine lays it out: run.json
// and one .hlog (microseconds, a few interval histograms) per target x
// iteration, latencies around medianMs. It returns the directory.
func fixtureRun(t testing.TB, runsDir, name string, start time.Time, medianMs float64, targets ...string) string {
	t.Helper()
	dir, err := store.NewRunDir(runsDir, name, start)
	if err != nil {
		t.Fatal(err)
	}
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "test", Name: name,
		ID: name + "-" + start.UTC().Format(store.DirTimeFormat), Start: start, End: start.Add(time.Minute),
		Environment: results.Environment{Host: "ci", OS: "linux", Arch: "amd64", CPUs: 2},
		Findings:    []results.Finding{{Kind: "saturation", Severity: "info", Evidence: "e", Advice: "a"}},
	}
	run.Plan.Load.Concurrency = 10
	run.Plan.Load.Requests = 400
	rng := rand.New(rand.NewPCG(uint64(start.Unix()), uint64(medianMs*1000)))
	for _, tg := range targets {
		run.Plan.Targets = append(run.Plan.Targets, plan.Target{Name: tg, URL: "http://127.0.0.1:1/" + tg})
		run.Environment.Targets = append(run.Environment.Targets, results.TargetFingerprint{Target: tg, Server: "nginx", BodySHA256: "ab12"})
		run.SLO = append(run.SLO, results.SLOCheck{Target: tg, Objective: "p95", Limit: 1000, Unit: "ms", Pass: true})
		for it := 1; it <= 2; it++ {
			run.Results = append(run.Results, fixtureResult(t, dir, tg, it, start, medianMs, rng))
		}
	}
	if err := store.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	return dir
}

func fixtureResult(t testing.TB, dir, target string, it int, start time.Time, medianMs float64, rng *rand.Rand) results.Result {
	var log bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&log)
	all := hdrhistogram.New(1, 60_000_000, 3)
	must(t, lw.OutputLogFormatVersion())
	must(t, lw.OutputStartTime(start.UnixMilli()))
	must(t, lw.OutputLegend())
	for interval := range 3 {
		h := hdrhistogram.New(1, 60_000_000, 3)
		h.SetStartTimeMs(start.UnixMilli() + int64(interval)*1000)
		h.SetEndTimeMs(start.UnixMilli() + int64(interval+1)*1000)
		for range 200 {
			v := int64(medianMs * 1000 * (0.5 + rng.ExpFloat64()*0.7))
			must(t, h.RecordValue(max(v, 1)))
			must(t, all.RecordValue(max(v, 1)))
		}
		must(t, lw.OutputIntervalHistogram(h))
	}
	file := store.HistogramFileName(target, it)
	if err := os.WriteFile(filepath.Join(dir, file), log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	q := func(p float64) float64 { return float64(all.ValueAtQuantile(p)) / 1000 }
	n := all.TotalCount()
	return results.Result{
		Target: target, Iteration: it, Model: plan.Closed, Start: start.Add(time.Duration(it) * time.Second),
		Requests: n, Successes: n - 2, SuccessRate: float64(n-2) / float64(n), ThroughputRPS: float64(n) / 3, DurationS: 3,
		Latency:       results.Latency{P50: q(50), P95: q(95), P99: q(99), Mean: all.Mean() / 1000, Max: float64(all.Max()) / 1000},
		Status:        map[string]int64{"200": n - 2, "401": 2},
		Errors:        map[string]int64{},
		HistogramFile: file,
		Components:    []results.ComponentUsage{{Name: "nginx", Source: "local", CPUMean: 0.5, Samples: []results.Sample{{T: 1, CPU: 0.5}}}},
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
