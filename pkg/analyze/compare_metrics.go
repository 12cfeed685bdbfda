package analyze

import (
	"github.com/authbench/authbench/pkg/results"
)

// Verdict classifies a difference from the baseline.
type Verdict string

// Verdicts. Worse and Better are beyond noise, or of unknown noise when
// Significance.Known() is false.
const (
	VerdictBaseline    Verdict = "baseline"
	VerdictEqual       Verdict = "equal"
	VerdictWithinNoise Verdict = "within-noise"
	VerdictWorse       Verdict = "worse"
	VerdictBetter      Verdict = "better"
	VerdictMissing     Verdict = "missing"
)

// Metric is one row of a comparison table: a value per side, and each
// side's difference from the baseline.
type Metric struct {
	Key  string `json:"key"`  // p50, mean, throughput_mean, success_rate...
	Name string `json:"name"` // as printed: "P50 (median)"
	Unit string `json:"unit"` // ms, req/s, s, fraction
	// HigherIsBetter is true for throughput and success rate.
	HigherIsBetter bool `json:"higher_is_better"`
	// Descriptive rows (min, max, total time) get no significance test.
	Descriptive bool      `json:"descriptive,omitempty"`
	Values      []float64 `json:"values"`
	// Missing marks sides whose source did not measure the metric.
	Missing []bool  `json:"missing"`
	Deltas  []Delta `json:"deltas"`
}

// Delta is one side's difference from the baseline.
type Delta struct {
	Diff  float64 `json:"diff"`  // side - baseline
	Ratio float64 `json:"ratio"` // side / baseline; 0 when the baseline is 0
	// Verdict: worse/better, equal, within-noise, missing or baseline.
	Verdict Verdict      `json:"verdict"`
	Sig     Significance `json:"significance"`
}

// latencyField reads one Latency field by its JSON key.
func latencyField(key string) func(results.Latency) float64 {
	switch key {
	case "min":
		return func(l results.Latency) float64 { return l.Min }
	case "mean":
		return func(l results.Latency) float64 { return l.Mean }
	case "p50":
		return func(l results.Latency) float64 { return l.P50 }
	case "p75":
		return func(l results.Latency) float64 { return l.P75 }
	case "p90":
		return func(l results.Latency) float64 { return l.P90 }
	case "p95":
		return func(l results.Latency) float64 { return l.P95 }
	case "p99":
		return func(l results.Latency) float64 { return l.P99 }
	case "p999":
		return func(l results.Latency) float64 { return l.P999 }
	case "max":
		return func(l results.Latency) float64 { return l.Max }
	}
	return func(results.Latency) float64 { return 0 }
}

// latencyRows are the rows of the latency table with, for percentiles,
// the quantile the bootstrap resamples (-1: the mean; 0: no bootstrap).
var latencyRows = []struct {
	key, name string
	q         float64
}{
	{"p50", "P50 (median)", 0.50},
	{"p75", "P75", 0.75},
	{"p90", "P90", 0.90},
	{"p95", "P95", 0.95},
	{"p99", "P99", 0.99},
	{"p999", "P99.9", 0.999},
	{"mean", "Average", -1},
	{"max", "Max", 0},
}

func latencyMetrics(sides []*Side, base int, useHist bool, o CompareOptions) []Metric {
	var out []Metric
	for _, row := range latencyRows {
		if row.key == "p999" && !allMeasured(sides, "p999") {
			continue
		}
		get := latencyField(row.key)
		// The max is one request: no test can say it is noise or not.
		m := Metric{Key: row.key, Name: row.name, Unit: "ms", Descriptive: row.key == "max"}
		iter := make([][]float64, len(sides))
		for i, s := range sides {
			m.Values = append(m.Values, get(s.Latency))
			m.Missing = append(m.Missing, !s.Measured(row.key))
			for _, r := range s.Results {
				iter[i] = append(iter[i], get(r.Latency))
			}
		}
		var cdfs []*cdf
		if useHist && row.q != 0 {
			for _, s := range sides {
				cdfs = append(cdfs, newCDF(s.Hist, s.HistPerMs))
			}
		}
		m.Deltas = make([]Delta, len(sides))
		for i := range sides {
			if i == base {
				m.Deltas[i].Verdict = VerdictBaseline
				continue
			}
			var sig Significance
			if !m.Descriptive {
				sig = iterationSig(iter[base], iter[i], o.Confidence)
			}
			if cdfs != nil {
				lo, hi := bootstrapDiff(cdfs[base], cdfs[i], row.q, o.Resamples, o.Seed, o.Confidence)
				sig = addBootstrap(sig, lo, hi)
			}
			m.Deltas[i] = judge(m, base, i, sig)
		}
		out = append(out, m)
	}
	return out
}

func allMeasured(sides []*Side, key string) bool {
	for _, s := range sides {
		if !s.Measured(key) {
			return false
		}
	}
	return true
}

// iterationSig tests per-iteration values with Welch's t-test.
func iterationSig(a, b []float64, conf float64) Significance {
	sig := Significance{RangesOverlap: rangesOverlap(a, b)}
	p, df, lo, hi, ok := welch(a, b, conf)
	if !ok {
		return sig
	}
	sig.Tests = append(sig.Tests, TestWelch)
	sig.PValue, sig.DF = p, df
	sig.CILow, sig.CIHigh, sig.CIMethod = lo, hi, TestWelch
	sig.Significant = p < 1-conf
	return sig
}

// addBootstrap adds the bootstrap interval: the difference must clear both
// the run-to-run spread (Welch) and the sampling noise (bootstrap).
func addBootstrap(sig Significance, lo, hi float64) Significance {
	welchSays := !sig.Known() || sig.Significant
	sig.Tests = append(sig.Tests, TestBootstrap)
	sig.CILow, sig.CIHigh, sig.CIMethod = lo, hi, TestBootstrap
	sig.Significant = welchSays && (lo > 0 || hi < 0)
	return sig
}

// judge turns values and significance into a Delta for side i.
func judge(m Metric, base, i int, sig Significance) Delta {
	a, b := m.Values[base], m.Values[i]
	d := Delta{Diff: b - a, Sig: sig}
	if a != 0 {
		d.Ratio = b / a
	}
	switch {
	case m.Missing[base] || m.Missing[i]:
		d.Verdict = VerdictMissing
	case a == b:
		d.Verdict = VerdictEqual
	case sig.Known() && !sig.Significant:
		d.Verdict = VerdictWithinNoise
	case (b > a) == m.HigherIsBetter:
		d.Verdict = VerdictBetter
	default:
		d.Verdict = VerdictWorse
	}
	return d
}

// throughputMetrics: average (tested), min, max and total time.
func throughputMetrics(sides []*Side, base int, o CompareOptions) []Metric {
	rows := []struct {
		key, name, unit string
		get             func(*Side) float64
		higher, descr   bool
	}{
		{"throughput_mean", "Avg Throughput", "req/s", func(s *Side) float64 { return s.Throughput.Mean }, true, false},
		{"throughput_min", "Min", "req/s", func(s *Side) float64 { return s.Throughput.Min }, true, true},
		{"throughput_max", "Max", "req/s", func(s *Side) float64 { return s.Throughput.Max }, true, true},
		{"total_time", "Total Time", "s", func(s *Side) float64 { return s.TotalTimeS }, false, true},
	}
	var out []Metric
	for _, row := range rows {
		m := Metric{Key: row.key, Name: row.name, Unit: row.unit, HigherIsBetter: row.higher, Descriptive: row.descr}
		for _, s := range sides {
			m.Values = append(m.Values, row.get(s))
			m.Missing = append(m.Missing, len(s.Results) == 0)
		}
		m.Deltas = make([]Delta, len(sides))
		for i := range sides {
			if i == base {
				m.Deltas[i].Verdict = VerdictBaseline
				continue
			}
			var sig Significance
			if !row.descr {
				sig = iterationSig(iterRPS(sides[base]), iterRPS(sides[i]), o.Confidence)
			}
			m.Deltas[i] = judge(m, base, i, sig)
		}
		out = append(out, m)
	}
	return out
}

func iterRPS(s *Side) []float64 {
	var v []float64
	for _, r := range s.Results {
		v = append(v, r.ThroughputRPS)
	}
	return v
}

// successMetric compares success rates with a two-proportion test.
func successMetric(sides []*Side, base int, o CompareOptions) Metric {
	m := Metric{Key: "success_rate", Name: "Success Rate", Unit: "fraction", HigherIsBetter: true}
	for _, s := range sides {
		m.Values = append(m.Values, s.SuccessRate)
		m.Missing = append(m.Missing, s.Requests == 0)
	}
	m.Deltas = make([]Delta, len(sides))
	b := sides[base]
	for i, s := range sides {
		if i == base {
			m.Deltas[i].Verdict = VerdictBaseline
			continue
		}
		var sig Significance
		if p, ok := proportionTest(b.Successes, b.Requests, s.Successes, s.Requests); ok {
			sig = Significance{Tests: []string{TestProportion}, PValue: p, Significant: p < 1-o.Confidence}
		}
		m.Deltas[i] = judge(m, base, i, sig)
	}
	return m
}

// MetricByKey finds a row by key in rows.
func MetricByKey(rows []Metric, key string) (Metric, bool) {
	for _, m := range rows {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}
