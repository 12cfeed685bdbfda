package analyze

import (
	"fmt"
	"math"
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

// iterSpec is one iteration of a fixture run, in the migration reports'
// figures.
type iterSpec struct {
	p50, p75, p95, p99, mean, max, rps float64
	forbidden                          int64 // 403 responses
	timeouts                           int64
}

// fixtureRun builds a realistic closed-loop run of 10,000 requests per
// iteration at concurrency 50, as the migration reports' hey runs.
func fixtureRun(name, url, server, body string, start time.Time, its []iterSpec) *results.Run {
	const n = 10000
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "0.1.0", Name: name, ID: name + "-0001",
		Start: start, End: start.Add(time.Hour),
		Plan: plan.Plan{
			Name:    name,
			Targets: []plan.Target{{Name: name, URL: url, Method: "GET", Layers: []string{"route", "oauth-proxy", "http-echo"}}},
			Load:    plan.Load{Requests: n, Concurrency: 50, Iterations: len(its)},
			Client:  plan.Client{Timeout: plan.DefaultTimeout},
		},
		Environment: results.Environment{Host: "perf-laptop", OS: "linux", Arch: "amd64", CPUs: 8,
			Targets: []results.TargetFingerprint{{Target: name, URL: url, Status: 200, Server: server, BodySHA256: body}}},
	}
	for i, it := range its {
		fail := it.forbidden + it.timeouts
		r := results.Result{
			Target: name, Iteration: i + 1, Model: plan.Closed,
			Requests: n, Successes: n - fail, SuccessRate: float64(n-fail) / n,
			ThroughputRPS: it.rps, DurationS: n / it.rps,
			Latency: results.Latency{Min: it.p50 / 5, Mean: it.mean, Stddev: it.p95 / 4, P50: it.p50, P75: it.p75,
				P90: (it.p75 + it.p95) / 2, P95: it.p95, P99: it.p99, P999: it.p99 * 1.1, P9999: it.max * 0.95, Max: it.max},
			Status: map[string]int64{"200": n - fail},
			Errors: map[string]int64{},
		}
		if it.forbidden > 0 {
			r.Status["403"] = it.forbidden
		}
		if it.timeouts > 0 {
			r.Errors["timeout"] = it.timeouts
			r.ErrorSamples = map[string]string{"timeout": "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}
		}
		run.Results = append(run.Results, r)
	}
	return run
}

var (
	oct23 = time.Date(2025, 10, 23, 14, 0, 0, 0, time.UTC)
	nov17 = time.Date(2025, 11, 17, 9, 30, 0, 0, time.UTC)
	oct15 = time.Date(2025, 10, 15, 16, 0, 0, 0, time.UTC)
)

const (
	echoBody  = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
	nginxBody = "38ffd4972ae513a0c79a8be4573403edcd709f0f572105362b08ff50cf6de521"
)

// reported2x and reported3x are the 2.x and 3.x runs of migration report
// 000, the overall comparison.
func reported2x() *results.Run {
	return fixtureRun("2.x", "https://echo-server-2x-opendatahub.apps.rosa.w7y7v5e1p9h9x1c.p3.openshiftapps.com/", "", echoBody, oct23, []iterSpec{
		{51, 55, 68, 82, 52, 256, 892, 0, 0},
		{49, 54, 66, 80, 51, 210, 951, 0, 0},
		{50, 55, 64, 81, 52, 199, 940, 0, 0},
		{52, 57, 74, 86, 53, 240, 935, 0, 0},
		{50, 54, 62, 81, 52, 230, 937, 0, 0},
	})
}

func reported3x() *results.Run {
	r := fixtureRun("3.x", "https://data-science-gateway.apps.rosa.f3d4c3l4i5u4x1v.fcu6.p3.openshiftapps.com/echo", "", echoBody, nov17, []iterSpec{
		{1596, 2170, 3121, 3990, 1680, 5145, 29.45, 2, 0},
		{1606, 2180, 3197, 4000, 1690, 5001, 29.04, 2, 0},
		{1639, 2200, 3116, 3970, 1700, 4990, 28.72, 6, 0},
		{1639, 2210, 3156, 4000, 1700, 5010, 28.65, 8, 0},
		{1600, 2190, 3101, 3870, 1680, 4980, 29.39, 2, 0},
	})
	r.Plan.Targets[0].Layers = []string{"gateway", "kube-auth-proxy", "kube-rbac-proxy", "http-echo"}
	return r
}

// reportedOct is the October 3.x run against the nginx backend (migration
// report 002).
func reportedOct() *results.Run {
	r := fixtureRun("oct", "https://data-science-gateway.apps.rosa.b9q3t4p8k3y8k9a.vzrg.p3.openshiftapps.com/echo", "nginx", nginxBody, oct15, []iterSpec{
		{2610, 2700, 2750, 2830, 2600, 3900, 19.08, 0, 0},
		{2640, 2720, 2830, 3200, 2650, 4100, 18.77, 0, 0},
		{2640, 2710, 2810, 2930, 2640, 4000, 18.83, 0, 0},
		{2650, 2730, 2820, 3490, 2660, 4500, 18.74, 0, 0},
		{2640, 2720, 2810, 12550, 2900, 17760, 16.66, 0, 113},
	})
	return r
}

// histRun writes a one-target run with lognormal latencies (median
// medianMs) and one .hlog per iteration into dir, the way the engine does.
func histRun(t *testing.T, dir, name string, medianMs float64, iterations, perIter int, seed uint64) *results.Run {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	run := fixtureRun(name, "http://127.0.0.1:8080/", "", echoBody, oct23, nil)
	run.Plan.Load.Requests = int64(perIter)
	for it := 1; it <= iterations; it++ {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for range perIter {
			ms := medianMs * math.Exp(0.3*rng.NormFloat64())
			_ = h.RecordValue(int64(ms * 1000))
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-iter%d.hlog", name, it))
		writeHlog(t, file, h)
		q := func(p float64) float64 { return float64(h.ValueAtQuantile(p)) / 1000 }
		rps := 50 / (h.Mean() / 1e6)
		run.Results = append(run.Results, results.Result{
			Target: name, Iteration: it, Model: plan.Closed, Requests: int64(perIter), Successes: int64(perIter), SuccessRate: 1,
			ThroughputRPS: rps, DurationS: float64(perIter) / rps,
			Latency: results.Latency{Min: float64(h.Min()) / 1000, Mean: h.Mean() / 1000, Stddev: h.StdDev() / 1000,
				P50: q(50), P75: q(75), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9), P9999: q(99.99), Max: float64(h.Max()) / 1000},
			Status:        map[string]int64{"200": int64(perIter)},
			HistogramFile: filepath.Base(file),
		})
	}
	return run
}

func writeHlog(t *testing.T, path string, h *hdrhistogram.Histogram) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := hdrhistogram.NewHistogramLogWriter(f)
	_ = w.OutputLogFormatVersion()
	_ = w.OutputStartTime(oct23.UnixMilli())
	_ = w.OutputLegend()
	h.SetStartTimeMs(oct23.UnixMilli())
	h.SetEndTimeMs(oct23.UnixMilli() + 1000)
	if err := w.OutputIntervalHistogram(h); err != nil {
		t.Fatal(err)
	}
}

// loadHistograms reads run's histograms from dir as callers do (store)
// and pairs them (Histograms).
func loadHistograms(dir string, run *results.Run) ([]Histogram, error) {
	hs, err := store.ReadHistograms(dir, run)
	if err != nil {
		return nil, err
	}
	return Histograms(run, hs), nil
}

// readFiles reads what Compare takes beside run.json, as callers do.
func readFiles(t *testing.T, dir string, run *results.Run) RunFiles {
	t.Helper()
	hs, err := store.ReadHistograms(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := store.ReadTimeline(dir)
	if err != nil {
		t.Fatal(err)
	}
	return RunFiles{Dir: dir, Hists: hs, Timeline: tl}
}
