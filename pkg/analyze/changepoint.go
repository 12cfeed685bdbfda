package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
)

// ChangePointConfig tunes E-Divisive means. The zero value means the
// defaults below, chosen as Apache Otava (formerly hunter) and MongoDB's
// signal-processing-algorithms do: a permutation test on the energy
// statistic, then a minimum relative change so that significant but
// negligible shifts are not reported.
type ChangePointConfig struct {
	// Alpha is the permutation test's significance level. Default 0.05.
	Alpha float64 `json:"alpha"`
	// Permutations per test. Default 199 (p-values in steps of 0.005).
	Permutations int `json:"permutations"`
	// MinRelativeChange drops change points whose before and after means
	// differ by less than this fraction of the before mean. Default 0.05.
	MinRelativeChange float64 `json:"min_relative_change"`
	// MinSize is the fewest points on either side of a split. Default 2.
	MinSize int `json:"min_size"`
	// Seed makes the permutations reproducible: the same history gives
	// the same answer every time (CI must not flap). Default 1.
	Seed uint64 `json:"seed"`
}

// Defaults of ChangePointConfig.
const (
	DefaultChangeAlpha        = 0.05
	DefaultChangePermutations = 199
	DefaultMinRelativeChange  = 0.05
	DefaultChangeMinSize      = 2
)

func (c ChangePointConfig) withDefaults() ChangePointConfig {
	if c.Alpha <= 0 {
		c.Alpha = DefaultChangeAlpha
	}
	if c.Permutations <= 0 {
		c.Permutations = DefaultChangePermutations
	}
	if c.MinRelativeChange < 0 {
		c.MinRelativeChange = 0
	} else if c.MinRelativeChange == 0 {
		c.MinRelativeChange = DefaultMinRelativeChange
	}
	if c.MinSize < 1 {
		c.MinSize = DefaultChangeMinSize
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	return c
}

// Change is one change point in a series of values: Index is the first
// value after the change.
type Change struct {
	Index int `json:"index"`
	// Before and After are the means of the segments either side, bounded
	// by the neighbouring change points.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Relative is (After - Before) / |Before|; ±Inf when Before is 0.
	Relative float64 `json:"relative_change"`
	// PValue is the permutation test's p-value when the point was found;
	// Q the energy statistic.
	PValue float64 `json:"p_value"`
	Q      float64 `json:"q"`
}

// ChangePoints finds the change points of values with E-Divisive means:
// the split maximising the energy statistic Q over every current segment
// is tested against permutations of that segment; a significant split is
// kept and the search repeats on the pieces until none is significant.
// Changes smaller than cfg.MinRelativeChange are then dropped (their
// neighbours' means recomputed). The result is sorted by Index.
func ChangePoints(values []float64, cfg ChangePointConfig) []Change {
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	found := map[int]float64{} // index -> p-value
	q := map[int]float64{}
	bounds := []int{0, len(values)}
	for {
		best, bestQ, bestSeg := -1, 0.0, 0
		for s := 0; s+1 < len(bounds); s++ {
			seg := values[bounds[s]:bounds[s+1]]
			tau, qv := bestSplit(distances(seg), identity(len(seg)), cfg.MinSize)
			if tau > 0 && qv > bestQ {
				best, bestQ, bestSeg = bounds[s]+tau, qv, s
			}
		}
		if best < 0 {
			break
		}
		seg := values[bounds[bestSeg]:bounds[bestSeg+1]]
		p := permutationP(seg, bestQ, cfg, rng)
		if p > cfg.Alpha {
			break
		}
		found[best], q[best] = p, bestQ
		bounds = append(bounds, best)
		slices.Sort(bounds)
	}
	idx := make([]int, 0, len(found))
	for i := range found {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	idx = dropSmall(values, idx, cfg.MinRelativeChange)
	return describeChanges(values, idx, found, q)
}

// dropSmall removes the change point with the smallest relative change
// while it is below min, so each survivor is judged against the segments
// its removed neighbours merged into.
func dropSmall(values []float64, idx []int, min float64) []int {
	for len(idx) > 0 {
		worst, worstRel := -1, math.Inf(1)
		for k, c := range describeChanges(values, idx, nil, nil) {
			if r := math.Abs(c.Relative); r < min && r < worstRel {
				worst, worstRel = k, r
			}
		}
		if worst < 0 {
			return idx
		}
		idx = slices.Delete(idx, worst, worst+1)
	}
	return idx
}

func describeChanges(values []float64, idx []int, p, q map[int]float64) []Change {
	out := make([]Change, 0, len(idx))
	for k, i := range idx {
		lo, hi := 0, len(values)
		if k > 0 {
			lo = idx[k-1]
		}
		if k+1 < len(idx) {
			hi = idx[k+1]
		}
		c := Change{Index: i, Before: segMean(values[lo:i]), After: segMean(values[i:hi]), PValue: p[i], Q: q[i]}
		c.Relative = relChange(c.Before, c.After)
		out = append(out, c)
	}
	return out
}

func relChange(before, after float64) float64 {
	switch {
	case before != 0:
		return (after - before) / math.Abs(before)
	case after == 0:
		return 0
	}
	return math.Copysign(math.Inf(1), after)
}

func segMean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// permutationP is the share of random orderings of seg whose best split
// is at least as strong as observed (counting the observation itself, so
// it is never 0).
func permutationP(seg []float64, observed float64, cfg ChangePointConfig, rng *rand.Rand) float64 {
	d := distances(seg)
	perm := identity(len(seg))
	hits := 1
	for range cfg.Permutations {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if _, qv := bestSplit(d, perm, cfg.MinSize); qv >= observed*(1-1e-12) {
			hits++
		}
	}
	return float64(hits) / float64(cfg.Permutations+1)
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// distances is the matrix |x_i - x_j|.
func distances(x []float64) [][]float64 {
	d := make([][]float64, len(x))
	for i := range x {
		d[i] = make([]float64, len(x))
		for j := range x {
			d[i][j] = math.Abs(x[i] - x[j])
		}
	}
	return d
}
