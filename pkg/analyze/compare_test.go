package analyze

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

func mustCompare(t *testing.T, runs []*results.Run, o CompareOptions) *Comparison {
	t.Helper()
	c, err := Compare(runs, o)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	return c
}

func kinds(ws []Warning) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w.Kind] = true
	}
	return m
}

func TestCompareReports2xVs3x(t *testing.T) {
	c := mustCompare(t, []*results.Run{reported2x(), reported3x()}, CompareOptions{})
	if c.LatencySource != SourceIterations {
		t.Errorf("latency source = %q, want %q (no histograms)", c.LatencySource, SourceIterations)
	}
	p50, _ := MetricByKey(c.Latency, "p50")
	d := p50.Deltas[1]
	if d.Verdict != VerdictWorse || !d.Sig.Significant || d.Sig.PValue > 1e-6 {
		t.Errorf("P50 delta = %+v, want a significant slowdown", d)
	}
	if math.Abs(d.Ratio-1616/50.4) > 0.05 {
		t.Errorf("P50 ratio = %.3f, want %.3f", d.Ratio, 1616/50.4)
	}
	tp, _ := MetricByKey(c.Throughput, "throughput_mean")
	if tp.Values[0] != 931 || tp.Deltas[1].Verdict != VerdictWorse {
		t.Errorf("throughput = %v %+v, want 931 and worse", tp.Values, tp.Deltas[1])
	}
	if c.Sides[1].Failures != 20 || c.Sides[1].Status["403"] != 20 {
		t.Errorf("3.x failures = %d (403: %d), want 20", c.Sides[1].Failures, c.Sides[1].Status["403"])
	}
	for i, s := range c.Saturation {
		if s == nil || !s.Holds {
			t.Errorf("side %d: Little's law should hold (migration reports: 50/931 = 54 ms vs 52 ms; 50/29 = 1.72 s vs 1.69 s): %+v", i, s)
		}
	}
	if !kinds(c.Notes)["saturation"] {
		t.Errorf("no saturation note in %+v", c.Notes)
	}
	if !kinds(c.Warnings)["cluster"] {
		t.Errorf("the migration reports' two clusters were not noticed: %+v", c.Warnings)
	}
}

func TestCompareOctVsNovNoticesBackend(t *testing.T) {
	c := mustCompare(t, []*results.Run{reportedOct(), reported3x()}, CompareOptions{})
	k := kinds(c.Warnings)
	if !k["backend"] {
		t.Errorf("nginx vs http-echo not flagged: %+v", c.Warnings)
	}
	var row ConfigRow
	for _, r := range c.Config {
		if r.Parameter == "Backend body SHA-256" {
			row = r
		}
	}
	if !row.Differs || !row.Critical || row.Note() != "**Key change**" {
		t.Errorf("body hash row = %+v (note %q)", row, row.Note())
	}
	if !kinds(c.Notes)["date"] {
		t.Errorf("33 days apart not noted: %+v", c.Notes)
	}
	if c.Sides[0].Errors["timeout"] != 113 {
		t.Errorf("oct timeouts = %d, want 113", c.Sides[0].Errors["timeout"])
	}
}

func TestCompareWarnings(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *results.Run)
		want   string // warning kind, "" for none
	}{
		{"same", func(*results.Run) {}, ""},
		{"concurrency", func(r *results.Run) { r.Plan.Load.Concurrency = 10 }, "concurrency"},
		{"open loop", func(r *results.Run) {
			r.Plan.Load.Rate = 100
			for i := range r.Results {
				r.Results[i].Model = plan.Open
			}
		}, "load-model"},
		{"host", func(r *results.Run) { r.Environment.Host = "ci-runner" }, "host"},
		{"cpus", func(r *results.Run) { r.Environment.CPUs = 2 }, "cpus"},
		{"server header", func(r *results.Run) { r.Environment.Targets[0].Server = "nginx/1.25" }, "backend"},
		{"body", func(r *results.Run) { r.Environment.Targets[0].BodySHA256 = nginxBody }, "backend"},
		{"partial", func(r *results.Run) { r.Partial = true }, "partial"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := reported2x(), reported2x()
			b.Name = "again"
			tt.change(b)
			c := mustCompare(t, []*results.Run{a, b}, CompareOptions{})
			k := kinds(c.Warnings)
			if tt.want == "" && len(c.Warnings) > 0 {
				t.Errorf("unexpected warnings %+v", c.Warnings)
			}
			if tt.want != "" && !k[tt.want] {
				t.Errorf("want a %q warning, got %+v", tt.want, c.Warnings)
			}
		})
	}
}

// rerunRuns are the reported 2.x run and a rerun of it: the same figures
// shuffled and nudged, not a change.
func rerunRuns() []*results.Run {
	a, b := reported2x(), reported2x()
	b.Name = "2.x-rerun"
	for i := range b.Results {
		j := (i + 2) % len(a.Results)
		b.Results[i].Latency = a.Results[j].Latency
		b.Results[i].Latency.P50 += 0.5
		b.Results[i].Latency.P95 += 1
		b.Results[i].Latency.P99 -= 1
		b.Results[i].Latency.Mean += 0.3
		b.Results[i].ThroughputRPS = a.Results[j].ThroughputRPS - 2
	}
	return []*results.Run{a, b}
}

// oneIterationRuns are the migration reports cut to one iteration each, without
// histograms: no test can tell their difference from noise.
func oneIterationRuns() []*results.Run {
	a, b := reported2x(), reported3x()
	a.Results, b.Results = a.Results[:1], b.Results[:1]
	return []*results.Run{a, b}
}

// wrkRuns are the reported 2.x and 3.x runs as imported from wrk, which
// measures no P95.
func wrkRuns() []*results.Run {
	a, b := reported2x(), reported3x()
	b.Imported = &results.Import{Tool: "wrk", Files: []string{"3x.txt"}}
	for i := range b.Results {
		b.Results[i].Unavailable = []string{"min", "p95", "p999", "p9999", "phases"}
		b.Results[i].Latency.P95 = 0
	}
	return []*results.Run{a, b}
}

func TestCompareWithinNoise(t *testing.T) {
	c := mustCompare(t, rerunRuns(), CompareOptions{})
	for _, key := range []string{"p50", "p95", "p99", "mean"} {
		m, _ := MetricByKey(c.Latency, key)
		if m.Deltas[1].Verdict != VerdictWithinNoise {
			t.Errorf("%s verdict = %s (p=%.3f), want within-noise", key, m.Deltas[1].Verdict, m.Deltas[1].Sig.PValue)
		}
	}
}

func TestCompareNoiseUnknown(t *testing.T) {
	c := mustCompare(t, oneIterationRuns(), CompareOptions{})
	p50, _ := MetricByKey(c.Latency, "p50")
	if p50.Deltas[1].Sig.Known() || p50.Deltas[1].Verdict != VerdictWorse {
		t.Errorf("one iteration, no histogram: delta = %+v, want worse with unknown noise", p50.Deltas[1])
	}
}

func TestCompareBaseline(t *testing.T) {
	tests := []struct {
		baseline string
		want     int
		err      string
	}{
		{"", 0, ""},
		{"3.x", 1, ""},
		{"3.x-0001", 1, ""},
		{"nope", 0, "matches no side"},
	}
	for _, tt := range tests {
		t.Run(tt.baseline, func(t *testing.T) {
			c, err := Compare([]*results.Run{reported2x(), reported3x()}, CompareOptions{Baseline: tt.baseline})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || c.Baseline != tt.want {
				t.Fatalf("baseline = %v, %v; want %d", c, err, tt.want)
			}
			p50, _ := MetricByKey(c.Latency, "p50")
			if p50.Deltas[tt.want].Verdict != VerdictBaseline {
				t.Errorf("baseline delta = %+v", p50.Deltas[tt.want])
			}
		})
	}
}

func TestCompareInputErrors(t *testing.T) {
	if _, err := Compare([]*results.Run{reported2x()}, CompareOptions{}); err == nil {
		t.Error("one run with one target: want an error")
	}
	if _, err := Compare(nil, CompareOptions{}); err == nil {
		t.Error("no run: want an error")
	}
	if _, err := Compare([]*results.Run{reported2x(), reported3x()}, CompareOptions{Files: []RunFiles{{Dir: "x"}}}); err == nil {
		t.Error("files not matching runs: want an error")
	}
}

func TestCompareTargetsWithinRun(t *testing.T) {
	a, b := reported2x(), reported3x()
	run := a
	run.Plan.Targets = append(run.Plan.Targets, b.Plan.Targets...)
	run.Environment.Targets = append(run.Environment.Targets, b.Environment.Targets...)
	run.Results = append(run.Results, b.Results...)
	c := mustCompare(t, []*results.Run{run}, CompareOptions{Baseline: "3.x"})
	if !c.WithinRun || len(c.Sides) != 2 || c.Sides[1].Label != "3.x" || c.Baseline != 1 {
		t.Fatalf("sides = %v %v baseline %d", c.Sides[0].Label, c.Sides[1].Label, c.Baseline)
	}
	if kinds(c.Warnings)["host"] {
		t.Error("targets of one run share the host; no host warning expected")
	}
}

func TestCompareSameNamesAreDisambiguated(t *testing.T) {
	a, b := reported2x(), reported2x()
	b.Start = nov17
	c := mustCompare(t, []*results.Run{a, b}, CompareOptions{})
	if c.Sides[0].Label == c.Sides[1].Label {
		t.Fatalf("labels not unique: %q", c.Sides[0].Label)
	}
	if !strings.Contains(c.Sides[1].Label, "2025-11-17") {
		t.Errorf("label %q should carry the date", c.Sides[1].Label)
	}
}

func TestCompareMissingMetrics(t *testing.T) {
	c := mustCompare(t, wrkRuns(), CompareOptions{})
	p95, _ := MetricByKey(c.Latency, "p95")
	if p95.Deltas[1].Verdict != VerdictMissing || !p95.Missing[1] {
		t.Errorf("P95 from wrk = %+v, want missing", p95.Deltas[1])
	}
	if _, ok := MetricByKey(c.Latency, "p999"); ok {
		t.Error("P99.9 row shown though one side did not measure it")
	}
	if !kinds(c.Notes)["imported"] {
		t.Errorf("imported side not noted: %+v", c.Notes)
	}
}

func TestCompareResourcesPerRequest(t *testing.T) {
	a, b := reported2x(), reported3x()
	for i := range a.Results {
		a.Results[i].Components = []results.ComponentUsage{
			{Name: "oauth-proxy", Role: "auth-proxy", CPUMean: 0.01, CPUPeak: 0.02, MemMean: 30e6, MemPeak: 32e6},
			{Name: "echo", Role: "backend", CPUMean: 0.05, MemMean: 20e6},
		}
	}
	for i := range b.Results {
		b.Results[i].Components = []results.ComponentUsage{
			{Name: "kube-auth-proxy", Role: "auth-proxy", CPUMean: 0.0334, CPUSecondsPer1k: 1.15, CPULimit: 0.05, ThrottledRatio: 0.8, MemMean: 32e6},
		}
	}
	c := mustCompare(t, []*results.Run{a, b}, CompareOptions{})
	var auth *ResourceRow
	for i := range c.Resources {
		if c.Resources[i].Key == "auth-proxy" {
			auth = &c.Resources[i]
		}
	}
	if auth == nil || auth.Usage[0] == nil || auth.Usage[1] == nil {
		t.Fatalf("auth-proxy not matched by role: %+v", c.Resources)
	}
	// 0.01 cores over 10,000/rps seconds for 10,000 requests = 0.01/rps*1000 per 1k.
	want := 0.0
	for _, r := range a.Results {
		want += 0.01 * r.DurationS
	}
	want = want / 50000 * 1000
	if got := auth.Usage[0].CPUSecondsPer1k; math.Abs(got-want) > 1e-9 {
		t.Errorf("2.x auth CPU per 1k = %g, want %g", got, want)
	}
	if got := auth.Usage[1].CPUSecondsPer1k; math.Abs(got-1.15) > 1e-9 {
		t.Errorf("3.x auth CPU per 1k = %g, want 1.15", got)
	}
	if len(c.Resources) != 2 || c.Resources[1].Usage[1] != nil {
		t.Errorf("backend should be absent on 3.x: %+v", c.Resources)
	}
}

func TestCompareHistogramsBootstrap(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		median  float64
		verdict Verdict
	}{
		{"same distribution", 50, VerdictWithinNoise},
		{"10% slower", 55, VerdictWorse},
		{"10% faster", 45, VerdictBetter},
	}
	baseDir := filepath.Join(dir, "base")
	base := histRun(t, baseDir, "base", 50, 1, 20000, 1)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := filepath.Join(dir, tt.name)
			other := histRun(t, d, "other", tt.median, 1, 20000, uint64(100+i))
			opts := CompareOptions{Files: []RunFiles{readFiles(t, baseDir, base), readFiles(t, d, other)}}
			c := mustCompare(t, []*results.Run{base, other}, opts)
			if c.LatencySource != SourceMerged {
				t.Fatalf("latency source = %q", c.LatencySource)
			}
			p50, _ := MetricByKey(c.Latency, "p50")
			dl := p50.Deltas[1]
			if dl.Verdict != tt.verdict || dl.Sig.CIMethod != TestBootstrap {
				t.Errorf("P50 delta = %+v, want %s by bootstrap", dl, tt.verdict)
			}
			if dl.Sig.CILow > dl.Diff || dl.Sig.CIHigh < dl.Diff {
				t.Errorf("CI [%g, %g] does not contain the difference %g", dl.Sig.CILow, dl.Sig.CIHigh, dl.Diff)
			}
			again := mustCompare(t, []*results.Run{base, other}, opts)
			p50b, _ := MetricByKey(again.Latency, "p50")
			if !reflect.DeepEqual(p50b.Deltas[1].Sig, dl.Sig) {
				t.Errorf("bootstrap not deterministic: %+v vs %+v", p50b.Deltas[1].Sig, dl.Sig)
			}
		})
	}
}

func TestLoadHistogramsUnits(t *testing.T) {
	dir := t.TempDir()
	run := histRun(t, dir, "a", 40, 2, 5000, 3)
	hs, err := loadHistograms(dir, run)
	if err != nil || len(hs) != 2 {
		t.Fatalf("loadHistograms = %d, %v", len(hs), err)
	}
	for _, h := range hs {
		if h.PerMs != 1000 {
			t.Errorf("unit = %g per ms, want 1000 (µs)", h.PerMs)
		}
		if h.H.TotalCount() != 5000 {
			t.Errorf("count = %d", h.H.TotalCount())
		}
	}
	run.Results[0].HistogramFile = "missing.hlog"
	if _, err := loadHistograms(dir, run); err == nil {
		t.Error("missing .hlog: want an error")
	}
}

func TestPercentileSpectrum(t *testing.T) {
	dir := t.TempDir()
	run := histRun(t, dir, "a", 40, 1, 10000, 4)
	hs, _ := loadHistograms(dir, run)
	sp := PercentileSpectrum(hs[0].H, hs[0].PerMs)
	if len(sp.Quantiles) != 41 || sp.Quantiles[0] != 0 {
		t.Fatalf("quantiles = %v", sp.Quantiles)
	}
	if math.Abs(sp.Quantiles[10]-0.9) > 1e-12 || math.Abs(sp.Quantiles[40]-0.9999) > 1e-12 {
		t.Errorf("decades misplaced: q[10]=%g q[40]=%g", sp.Quantiles[10], sp.Quantiles[40])
	}
	for i := 1; i < len(sp.ValuesMs); i++ {
		if sp.ValuesMs[i] < sp.ValuesMs[i-1] {
			t.Fatalf("spectrum not monotonic at %d: %v", i, sp.ValuesMs)
		}
	}
}

func TestWelchTextbook(t *testing.T) {
	// Welch's t-test example 1 (Wikipedia): t = -2.46, df = 24.99, p = 0.021.
	a := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	b := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}
	p, df, lo, hi, ok := welch(a, b, 0.95)
	if !ok || math.Abs(df-24.99) > 0.01 || math.Abs(p-0.021) > 0.001 {
		t.Errorf("welch = p %.4f df %.2f, want 0.021 and 24.99", p, df)
	}
	if lo <= 0 || hi <= lo {
		t.Errorf("CI [%g, %g] should exclude 0", lo, hi)
	}
	if _, _, _, _, ok := welch(a[:1], b, 0.95); ok {
		t.Error("one value: the test cannot run")
	}
}

func TestProportionTest(t *testing.T) {
	tests := []struct {
		name           string
		sa, na, sb, nb int64
		significant    bool
	}{
		{"20 of 50k failed vs none", 50000, 50000, 49980, 50000, true},
		{"1 of 50k", 50000, 50000, 49999, 50000, false},
		{"equal", 100, 100, 100, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := proportionTest(tt.sa, tt.na, tt.sb, tt.nb)
			if !ok || (p < 0.05) != tt.significant {
				t.Errorf("p = %g, significant want %v", p, tt.significant)
			}
		})
	}
}

func TestFormatters(t *testing.T) {
	tests := []struct{ got, want string }{
		{FormatRatio(32.41), "32.4x"},
		{FormatRatio(1.5), "1.50x"},
		{FormatRatio(0.65), "0.650x"},
		{FormatRatio(147.2), "147x"},
		{FormatRatio(0), "n/a"},
		{FormatMs(0.85), "850 µs"},
		{FormatMs(46), "46.0 ms"},
		{FormatMs(1620), "1.62 s"},
		{FormatMs(999.7), "1.00 s"},
		{FormatRate(931), "931"},
		{FormatRate(29.05), "29.1"},
		{FormatRate(1032.4), "1,032"},
		{FormatFraction(0.9996), "99.96%"},
		{FormatFraction(0.999999), ">99.99%"},
		{FormatFraction(1), "100%"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestCompareNeighbours: a run beside other work on its host, compared
// with one on a quiet host, gets a warning naming it; two quiet runs, two
// busy ones, or a run without host readings do not.
func TestCompareNeighbours(t *testing.T) {
	host := func(r *results.Run, busy float64) {
		for i := range r.Results {
			r.Results[i].Host = &results.HostCPU{CPUs: 2, Seconds: 5, BusyCores: busy, SelfCores: 0.3}
		}
	}
	tests := []struct {
		name       string
		aBusy      float64 // host busy cores of the baseline, 0: not read
		bBusy      float64
		want       bool
		wantInText string
	}{
		{"baseline quiet, other beside a build", 0.4, 1.9, true, "again ran beside other work on its host: processes no sampler watched took 80%"},
		{"baseline beside a build", 1.9, 0.4, true, "2.x ran beside other work"},
		{"both quiet", 0.4, 0.5, false, ""},
		{"both busy", 1.9, 1.8, false, ""},
		{"not read on one side", 0, 1.9, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := reported2x(), reported2x()
			b.Name = "again"
			if tt.aBusy > 0 {
				host(a, tt.aBusy)
			}
			host(b, tt.bBusy)
			c := mustCompare(t, []*results.Run{a, b}, CompareOptions{})
			var got string
			for _, w := range c.Warnings {
				if w.Kind == "neighbours" {
					got = w.Message
				}
			}
			if (got != "") != tt.want || !strings.Contains(got, tt.wantInText) {
				t.Errorf("neighbours warning %q, want %v containing %q (all: %+v)", got, tt.want, tt.wantInText, c.Warnings)
			}
		})
	}
}
