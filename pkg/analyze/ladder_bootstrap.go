package analyze

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/authbench/authbench/pkg/results"
)

// estimateFigures evaluates every figure (a sum of rung percentiles) at
// P50, P95 and P99, with percentile-bootstrap intervals. Rungs are
// measured separately, so each resample draws every rung's percentile
// independently (the exact order-statistic draw of compare_stats.go), and
// every figure is evaluated on the same draws: a layer, the total and the
// remainder stay consistent within a resample.
func estimateFigures(in LadderInput, cdfs []*cdf, figs [][]LadderTerm) []figureEstimate {
	out := make([]figureEstimate, len(figs))
	points := make([]float64, len(cdfs))
	draws := make([][]float64, len(cdfs))
	vals := make([]float64, in.Resamples)
	for qi, p := range results.LadderPercentiles {
		for h, c := range cdfs {
			points[h] = float64(in.Hists[h].ValueAtQuantile(p)) / in.PerMs
			draws[h] = drawQuantile(c, p/100, in.Resamples, rand.NewPCG(in.Seed, uint64(h)<<8|uint64(qi)))
		}
		for f, terms := range figs {
			pt := evalTerms(terms, func(h int) float64 { return points[h] })
			for s := range vals {
				vals[s] = evalTerms(terms, func(h int) float64 { return draws[h][s] })
			}
			lo, hi := percentileInterval(vals, in.Confidence)
			setQuantile(&out[f], qi, pt, lo, hi)
		}
	}
	return out
}

func drawQuantile(c *cdf, q float64, n int, src rand.Source) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = c.resampleQuantile(q, src)
	}
	return d
}

// percentileInterval sorts vals and returns the central conf interval, as
// bootstrapDiff does.
func percentileInterval(vals []float64, conf float64) (lo, hi float64) {
	slices.Sort(vals)
	tail := (1 - conf) / 2
	at := func(p float64) float64 {
		return vals[min(len(vals)-1, max(0, int(math.Round(p*float64(len(vals)-1)))))]
	}
	return at(tail), at(1 - tail)
}

// setQuantile records one percentile, rounded to the microsecond: no
// histogram here resolves finer, and float noise would read as precision.
func setQuantile(e *figureEstimate, qi int, pt, lo, hi float64) {
	p, c := e.point.Values(), e.ci.Values()
	p[qi], c[qi] = roundTo(pt, 1e3), [2]float64{roundTo(lo, 1e3), roundTo(hi, 1e3)}
	e.point, e.ci = results.QuantilesOf(p), results.IntervalsOf(c)
}

// roundTo rounds x to 1/per.
func roundTo(x, per float64) float64 { return math.Round(x*per) / per }
