package analyze

// bestSplit returns the split tau (the first index of the right part, in
// the order perm gives the points) maximising the energy statistic of
// Matteson and James,
//
//	Q(tau) = m k / (m + k) * (2/(m k) Σ|xi-yj| - Σ|xi-xi'|/C(m,2) - Σ|yj-yj'|/C(k,2)),
//
// with m = tau and k = n - tau points either side, and the statistic; tau
// is 0 when the series is too short. Sums are updated as one point moves
// from the right part to the left, so all splits cost O(n²).
func bestSplit(d [][]float64, perm []int, minSize int) (int, float64) {
	n := len(perm)
	if n < 2*minSize || n < 2 {
		return 0, 0
	}
	var between, left, right float64
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			right += d[perm[a]][perm[b]]
		}
	}
	bestTau, bestQ := 0, 0.0
	for tau := 1; tau < n; tau++ {
		// Move point tau-1 from the right part to the left.
		p := perm[tau-1]
		var toLeft, toRight float64
		for a := 0; a < tau-1; a++ {
			toLeft += d[p][perm[a]]
		}
		for b := tau; b < n; b++ {
			toRight += d[p][perm[b]]
		}
		left += toLeft
		right -= toRight
		between += toRight - toLeft
		if tau < minSize || n-tau < minSize {
			continue
		}
		if q := energyQ(between, left, right, tau, n-tau); q > bestQ {
			bestTau, bestQ = tau, q
		}
	}
	return bestTau, bestQ
}

func energyQ(between, left, right float64, m, k int) float64 {
	fm, fk := float64(m), float64(k)
	e := 2 * between / (fm * fk)
	if m > 1 {
		e -= left / (fm * (fm - 1) / 2)
	}
	if k > 1 {
		e -= right / (fk * (fk - 1) / 2)
	}
	return fm * fk / (fm + fk) * e
}
