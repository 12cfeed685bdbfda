package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// cxIter is one iteration of a comparison fixture, in the migration reports'
// figures.
type cxIter struct {
	p50, p75, p95, p99, mean, max, rps float64
	forbidden, timeouts                int64
}

var (
	cxOct23 = time.Date(2025, 10, 23, 14, 0, 0, 0, time.UTC)
	cxNov17 = time.Date(2025, 11, 17, 9, 30, 0, 0, time.UTC)
	cxOct15 = time.Date(2025, 10, 15, 16, 0, 0, 0, time.UTC)
)

const (
	cxEcho  = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
	cxNginx = "38ffd4972ae513a0c79a8be4573403edcd709f0f572105362b08ff50cf6de521"
)

// cxRun builds a closed-loop run of 10,000 requests per iteration at
// concurrency 50, as the migration reports' hey runs.
func cxRun(name, url, server, body string, start time.Time, layers []string, its []cxIter) *results.Run {
	const n = 10000
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, AuthbenchVersion: "0.1.0", Name: name, ID: name + "-20251117",
		Start: start, End: start.Add(time.Hour),
		Plan: plan.Plan{
			Name:    name,
			Targets: []plan.Target{{Name: name, URL: url, Method: "GET", Layers: layers}},
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
			Start:    start.Add(time.Duration(i) * 10 * time.Minute),
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

// cxComponent is a component with a per-second sample series.
func cxComponent(name, role string, cpu, mem, limit, throttled float64, r results.Result) results.ComponentUsage {
	u := results.ComponentUsage{Name: name, Role: role, Source: "local", CPUIdle: cpu / 30, CPUMean: cpu, CPUPeak: cpu * 1.6,
		MemStart: mem * 0.8, MemMean: mem, MemPeak: mem * 1.1, CPULimit: limit, ThrottledRatio: throttled}
	u.CPUSecondsPer1k = cpu * r.DurationS / float64(r.Requests) * 1000
	secs := int(math.Min(r.DurationS, 60))
	for s := 0; s < secs; s++ {
		wave := 1 + 0.2*math.Sin(float64(s)/3)
		u.Samples = append(u.Samples, results.Sample{T: float64(s), CPU: cpu * wave, Mem: mem * (0.9 + 0.002*float64(s)), Throttle: throttled})
	}
	return u
}

func cxReported2x() *results.Run {
	r := cxRun("2.x", "https://echo-server-2x-opendatahub.apps.rosa.w7y7v5e1p9h9x1c.p3.openshiftapps.com/", "", cxEcho, cxOct23,
		[]string{"route", "oauth-proxy", "http-echo"}, []cxIter{
			{51, 55, 68, 82, 52, 256, 892, 0, 0},
			{49, 54, 66, 80, 51, 210, 951, 0, 0},
			{50, 55, 64, 81, 52, 199, 940, 0, 0},
			{52, 57, 74, 86, 53, 240, 935, 0, 0},
			{50, 54, 62, 81, 52, 230, 937, 0, 0},
		})
	for i := range r.Results {
		res := r.Results[i]
		r.Results[i].Components = []results.ComponentUsage{
			cxComponent("oauth-proxy", "auth-proxy", 0.01, 32e6, 0, 0, res),
			cxComponent("echo-server", "backend", 0.05, 30e6, 0, 0, res),
		}
	}
	return r
}

func cxReported3x() *results.Run {
	r := cxRun("3.x", "https://data-science-gateway.apps.rosa.f3d4c3l4i5u4x1v.fcu6.p3.openshiftapps.com/echo", "", cxEcho, cxNov17,
		[]string{"gateway", "kube-auth-proxy", "kube-rbac-proxy", "http-echo"}, []cxIter{
			{1596, 2170, 3121, 3990, 1680, 5145, 29.45, 2, 0},
			{1606, 2180, 3197, 4000, 1690, 5001, 29.04, 2, 0},
			{1639, 2200, 3116, 3970, 1700, 4990, 28.72, 6, 0},
			{1639, 2210, 3156, 4000, 1700, 5010, 28.65, 8, 0},
			{1600, 2190, 3101, 3870, 1680, 4980, 29.39, 2, 0},
		})
	for i := range r.Results {
		res := r.Results[i]
		r.Results[i].Components = []results.ComponentUsage{
			cxComponent("kube-auth-proxy", "auth-proxy", 0.0334, 32.3e6, 0.05, 0.62, res),
			cxComponent("kube-rbac-proxy", "authz-proxy", 0.003, 13.2e6, 0, 0, res),
			cxComponent("echo-server", "backend", 0.0103, 26.9e6, 0, 0, res),
		}
	}
	return r
}

// cxReportedOct is the migration reports' October run against nginx (002): 113
// timeouts in iteration 5.
func cxReportedOct() *results.Run {
	return cxRun("oct-15", "https://data-science-gateway.apps.rosa.b9q3t4p8k3y8k9a.vzrg.p3.openshiftapps.com/echo", "nginx", cxNginx, cxOct15,
		[]string{"gateway", "kube-auth-proxy", "kube-rbac-proxy", "nginx"}, []cxIter{
			{2610, 2700, 2750, 2830, 2600, 3900, 19.08, 0, 0},
			{2640, 2720, 2830, 3200, 2650, 4100, 18.77, 0, 0},
			{2640, 2710, 2810, 2930, 2640, 4000, 18.83, 0, 0},
			{2650, 2730, 2820, 3490, 2660, 4500, 18.74, 0, 0},
			{2640, 2720, 2810, 12550, 2900, 17760, 16.66, 0, 113},
		})
}

func cxCompare(t *testing.T, runs []*results.Run, opts analyze.CompareOptions) *analyze.Comparison {
	t.Helper()
	c, err := analyze.Compare(runs, opts)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	return c
}

// cxRunDir writes a run directory as the runner does: run.json, one .hlog
// per iteration (µs values, lognormal around each iteration's P50) and a
// per-second timeline.
func cxRunDir(t *testing.T, parent string, run *results.Run, seed uint64) string {
	t.Helper()
	dir := filepath.Join(parent, run.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	tl := results.Timeline{}
	for i := range run.Results {
		r := &run.Results[i]
		h := hdrhistogram.New(1, 60_000_000, 3)
		for range 4000 {
			ms := r.Latency.P50 * math.Exp(0.35*rng.NormFloat64())
			_ = h.RecordValue(int64(ms * 1000))
		}
		r.HistogramFile = fmt.Sprintf("%s-iter%d.hlog", store.SafeName(r.Target), r.Iteration)
		cxWriteHlog(t, filepath.Join(dir, r.HistogramFile), h)
		q := func(p float64) float64 { return float64(h.ValueAtQuantile(p)) / 1000 }
		r.Latency = results.Latency{Min: float64(h.Min()) / 1000, Mean: h.Mean() / 1000, Stddev: h.StdDev() / 1000,
			P50: q(50), P75: q(75), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9), P9999: q(99.99), Max: float64(h.Max()) / 1000}
		ser := results.Series{Target: r.Target, Iteration: r.Iteration}
		for s := 0; s < int(math.Min(r.DurationS, 60)); s++ {
			wave := 1 + 0.1*math.Sin(float64(s)/2+float64(i))
			ser.Points = append(ser.Points, results.Point{T: float64(s), Requests: int64(r.ThroughputRPS * wave),
				P50: r.Latency.P50 / wave, P99: r.Latency.P99 / wave})
		}
		tl.Series = append(tl.Series, ser)
	}
	if err := store.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	if err := store.WriteJSON(filepath.Join(dir, results.TimelineFile), tl); err != nil {
		t.Fatal(err)
	}
	return dir
}

func cxWriteHlog(t *testing.T, path string, h *hdrhistogram.Histogram) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := hdrhistogram.NewHistogramLogWriter(f)
	_ = w.OutputLogFormatVersion()
	_ = w.OutputStartTime(cxOct23.UnixMilli())
	_ = w.OutputLegend()
	h.SetStartTimeMs(cxOct23.UnixMilli())
	h.SetEndTimeMs(cxOct23.UnixMilli() + 1000)
	if err := w.OutputIntervalHistogram(h); err != nil {
		t.Fatal(err)
	}
}
