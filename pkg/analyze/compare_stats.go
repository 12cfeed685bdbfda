package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/gonum/stat/distuv"
)

// Test names, as reported in Significance.Tests.
const (
	TestWelch      = "welch"      // Welch's t-test on per-iteration values
	TestBootstrap  = "bootstrap"  // bootstrap CI from the merged histograms
	TestProportion = "proportion" // two-proportion z-test on counts
)

// Significance is the evidence that a difference exceeds run-to-run noise.
type Significance struct {
	// Tests lists the tests that could be run; empty means the noise is
	// unknown (e.g. one iteration per side and no histograms).
	Tests []string `json:"tests,omitempty"`
	// PValue is Welch's (or the proportion test's) two-sided p-value.
	PValue float64 `json:"p_value,omitempty"`
	// DF is Welch's degrees of freedom.
	DF float64 `json:"df,omitempty"`
	// CILow and CIHigh bound the difference (side - baseline) at the
	// comparison's confidence: from the bootstrap when it ran, else Welch's.
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// CIMethod names the test the interval comes from.
	CIMethod string `json:"ci_method,omitempty"`
	// RangesOverlap is true when the per-iteration ranges overlap.
	RangesOverlap bool `json:"ranges_overlap"`
	// Significant is true when every test that ran rejects "no difference".
	Significant bool `json:"significant"`
}

// Known reports whether any test ran.
func (s Significance) Known() bool { return len(s.Tests) > 0 }

func sampleVariance(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(v)-1)
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// welch runs Welch's t-test of b against a. ok is false with fewer than
// two values on either side. Zero variance on both sides makes the test
// degenerate: equal means are then "no difference", unequal ones a
// difference no noise could explain.
func welch(a, b []float64, conf float64) (p, df, lo, hi float64, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return 0, 0, 0, 0, false
	}
	ma, mb := mean(a), mean(b)
	va, vb := sampleVariance(a)/float64(len(a)), sampleVariance(b)/float64(len(b))
	se := math.Sqrt(va + vb)
	d := mb - ma
	if se == 0 {
		if d == 0 {
			return 1, 0, 0, 0, true
		}
		return 0, 0, d, d, true
	}
	df = (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	p = 2 * t.Survival(math.Abs(d/se))
	crit := t.Quantile(1 - (1-conf)/2)
	return p, df, d - crit*se, d + crit*se, true
}

// proportionTest is the two-proportion z-test for successes out of n.
func proportionTest(sa, na, sb, nb int64) (p float64, ok bool) {
	if na == 0 || nb == 0 {
		return 0, false
	}
	pa, pb := float64(sa)/float64(na), float64(sb)/float64(nb)
	pool := float64(sa+sb) / float64(na+nb)
	se := math.Sqrt(pool * (1 - pool) * (1/float64(na) + 1/float64(nb)))
	if se == 0 {
		if pa == pb {
			return 1, true
		}
		return 0, true
	}
	z := (pb - pa) / se
	return 2 * distuv.UnitNormal.Survival(math.Abs(z)), true
}

func rangesOverlap(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	return slices.Min(a) <= slices.Max(b) && slices.Min(b) <= slices.Max(a)
}

// cdf is a histogram flattened for inverse-CDF sampling.
type cdf struct {
	cum    []float64 // cumulative fraction at the end of each bucket
	values []float64 // bucket value, in ms
	n      int64
	mean   float64 // ms
	sd     float64 // ms
}

func newCDF(h *hdrhistogram.Histogram, perMs float64) *cdf {
	c := &cdf{n: h.TotalCount(), mean: h.Mean() / perMs, sd: h.StdDev() / perMs}
	var run int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		run += b.Count
		c.cum = append(c.cum, float64(run)/float64(c.n))
		c.values = append(c.values, float64(b.To)/perMs)
	}
	return c
}

func (c *cdf) inverse(u float64) float64 {
	i := sort.SearchFloat64s(c.cum, u)
	return c.values[min(i, len(c.values)-1)]
}

// resampleQuantile draws the q-quantile of a bootstrap resample of size n
// without drawing n values: the k-th order statistic of n uniforms is
// Beta(k, n-k+1), mapped through the inverse CDF. This is the exact
// bootstrap distribution of the sample quantile at O(log buckets) a draw.
func (c *cdf) resampleQuantile(q float64, src rand.Source) float64 {
	k := math.Max(1, math.Ceil(q*float64(c.n)))
	b := distuv.Beta{Alpha: k, Beta: float64(c.n) - k + 1, Src: src}
	return c.inverse(b.Rand())
}

// resampleMean draws a bootstrap resample's mean: by the central limit
// theorem it is normal around the mean with sd/sqrt(n).
func (c *cdf) resampleMean(src rand.Source) float64 {
	return distuv.Normal{Mu: c.mean, Sigma: c.sd / math.Sqrt(float64(c.n)), Src: src}.Rand()
}

// bootstrapDiff returns the confidence interval of stat(b) - stat(a) over
// resamples, where stat is a quantile in [0,1] or, for q < 0, the mean.
func bootstrapDiff(a, b *cdf, q float64, resamples int, seed uint64, conf float64) (lo, hi float64) {
	src := rand.NewPCG(seed, uint64(math.Float64bits(q)))
	diffs := make([]float64, resamples)
	for i := range diffs {
		if q < 0 {
			diffs[i] = b.resampleMean(src) - a.resampleMean(src)
		} else {
			diffs[i] = b.resampleQuantile(q, src) - a.resampleQuantile(q, src)
		}
	}
	slices.Sort(diffs)
	tail := (1 - conf) / 2
	at := func(p float64) float64 {
		return diffs[min(len(diffs)-1, max(0, int(math.Round(p*float64(len(diffs)-1)))))]
	}
	return at(tail), at(1 - tail)
}
