package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/authbench/authbench/pkg/results"
)

// estimateFigures evaluates every figure (a sum of rung percentiles) at
// P50, P95 and P99: the point from the merged histograms, the interval
// from a two-stage (cluster) bootstrap. Each resample draws the rounds
// with replacement — the same rounds for every rung when all have as
// many, since the rungs of one round ran side by side and drift common to
// them cancels in the differences — then each rung's percentile as the
// order statistic of its chosen rounds' pooled requests (compare_stats.go's
// exact Beta draw). Every figure is evaluated on the same draws, so a
// layer, the total and the remainder stay consistent within a resample.
// With one round per rung this is the plain bootstrap of the merged
// histogram; with several it also covers drift between rounds, which a
// merged histogram hides.
func estimateFigures(in LadderInput, pools []*roundsCDF, figs [][]LadderTerm) []figureEstimate {
	out := make([]figureEstimate, len(figs))
	points := make([]float64, len(pools))
	draws := make([][]float64, len(pools))
	vals := make([]float64, in.Resamples)
	shared := sameRoundCount(pools)
	for qi, p := range results.LadderPercentiles {
		for h := range pools {
			points[h] = float64(in.Hists[h].ValueAtQuantile(p)) / in.PerMs
			draws[h] = make([]float64, in.Resamples)
		}
		roundSrc := rand.New(rand.NewPCG(in.Seed, 1<<32|uint64(qi)))
		srcs := make([]rand.Source, len(pools))
		for h := range pools {
			srcs[h] = rand.NewPCG(in.Seed, uint64(h)<<8|uint64(qi))
		}
		for s := range in.Resamples {
			var mult []int
			if shared {
				mult = drawRounds(len(pools[0].n), roundSrc)
			}
			for h, pool := range pools {
				m := mult
				if !shared {
					m = drawRounds(len(pool.n), roundSrc)
				}
				draws[h][s] = pool.draw(p/100, m, srcs[h])
			}
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

func sameRoundCount(pools []*roundsCDF) bool {
	for _, p := range pools {
		if len(p.n) != len(pools[0].n) {
			return false
		}
	}
	return true
}

// drawRounds picks n of n rounds with replacement: how often each is taken.
func drawRounds(n int, r *rand.Rand) []int {
	m := make([]int, n)
	if n == 1 {
		m[0] = 1
		return m
	}
	for range n {
		m[r.IntN(n)]++
	}
	return m
}

// roundsCDF is one rung's rounds on a common grid of values: the upper
// edge of every bucket any round has requests in, and per round how many
// requests lie at or below each.
type roundsCDF struct {
	values []float64 // ms, ascending
	cum    [][]int64 // per round, per grid value
	n      []int64   // per round
}

func newRoundsCDF(rounds []*hdrhistogram.Histogram, perMs float64) *roundsCDF {
	c := &roundsCDF{}
	seen := map[int64]bool{}
	var grid []int64
	for _, h := range rounds {
		for _, b := range h.Distribution() {
			if b.Count > 0 && !seen[b.To] {
				seen[b.To] = true
				grid = append(grid, b.To)
			}
		}
	}
	slices.Sort(grid)
	for _, v := range grid {
		c.values = append(c.values, float64(v)/perMs)
	}
	for _, h := range rounds {
		cum := make([]int64, len(grid))
		var run int64
		bars := h.Distribution()
		j := 0
		for g, v := range grid {
			for j < len(bars) && bars[j].To <= v {
				run += bars[j].Count
				j++
			}
			cum[g] = run
		}
		c.cum = append(c.cum, cum)
		c.n = append(c.n, h.TotalCount())
	}
	return c
}

// draw returns the q-quantile of one bootstrap resample: the rounds taken
// mult times each, then as many requests drawn from their pool. The k-th
// order statistic of N uniforms is Beta(k, N-k+1), mapped through the
// pool's inverse CDF, as resampleQuantile does for one histogram.
func (c *roundsCDF) draw(q float64, mult []int, src rand.Source) float64 {
	var n int64
	for i, m := range mult {
		n += int64(m) * c.n[i]
	}
	if n == 0 {
		return math.NaN()
	}
	k := math.Max(1, math.Ceil(q*float64(n)))
	u := distuv.Beta{Alpha: k, Beta: float64(n) - k + 1, Src: src}.Rand()
	target := u * float64(n)
	g := sort.Search(len(c.values), func(g int) bool {
		var s int64
		for i, m := range mult {
			s += int64(m) * c.cum[i][g]
		}
		return float64(s) >= target
	})
	return c.values[min(g, len(c.values)-1)]
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
