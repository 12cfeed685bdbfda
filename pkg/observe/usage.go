package observe

import (
	"math"
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// window is what one summary covers: the load [start, end] with its
// request count, and the idle baseline [idleStart, idleEnd] before any load.
type window struct {
	start, end         time.Time
	idleStart, idleEnd time.Time
	requests           int64
}

// summarize turns one component's points into its usage for the window.
// Counters are read at the window's exact edges from the points bracketing
// them (windowIncrease), so that the whole window, and only it, is covered
// even when readings are sparse (Prometheus scrapes).
func summarize(c Component, source string, pts []Point, w window) results.ComponentUsage {
	u := results.ComponentUsage{Name: c.Name, Role: c.Role, Source: source}
	if len(pts) == 0 {
		return u
	}
	dur := w.end.Sub(w.start).Seconds()
	u.CPUIdle = baselineRate(pts, w.idleStart, w.idleEnd, cpuOf)
	u.CPUMean = counterRate(pts, w.start, w.end, cpuOf)
	cpuSeconds := u.CPUMean * dur
	if w.requests > 0 {
		u.CPUSecondsPer1k = cpuSeconds / float64(w.requests) * 1000
		if u.CPUMean > 0 && dur > 0 {
			u.RPSPerCore = float64(w.requests) / dur / u.CPUMean
		}
	}
	u.Samples, u.CPUPeak = samples(pts, w.start, w.end)
	u.CPUPeak = math.Max(u.CPUPeak, u.CPUMean)
	memory(&u, pts, w)
	throttling(&u, pts, w)
	if last, ok := lastKnown(pts, w.end, func(p Point) float64 { return p.CPULimit }); ok {
		u.CPULimit = last
	}
	if last, ok := lastKnown(pts, w.end, func(p Point) float64 { return p.MemLimit }); ok {
		u.MemLimit = last
	}
	return u
}

func cpuOf(p Point) float64 { return p.CPUSeconds }

// bracket returns the indexes of the last point with a known value at or
// before start (else the first known) and of the first at or after end
// (else the last known); ok is false with fewer than two known points.
func bracket(pts []Point, start, end time.Time, f func(Point) float64) (lo, hi int, ok bool) {
	lo, hi = -1, -1
	first, last := -1, -1
	for i, p := range pts {
		if !known(f(p)) {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		if !p.Time.After(start) {
			lo = i
		}
		if hi < 0 && !p.Time.Before(end) {
			hi = i
		}
	}
	if lo < 0 {
		lo = first
	}
	if hi < 0 {
		hi = last
	}
	return lo, hi, lo >= 0 && hi > lo
}

// increase sums the positive steps of a counter from lo to hi, so that a
// reset (a restarted process or pod) loses one interval, not the window.
func increase(pts []Point, lo, hi int, f func(Point) float64) float64 {
	var sum float64
	prev := f(pts[lo])
	for i := lo + 1; i <= hi; i++ {
		v := f(pts[i])
		if !known(v) {
			continue
		}
		if v > prev {
			sum += v - prev
		}
		prev = v
	}
	return sum
}

// counterRate is a counter's mean rate over [start, end], cut to the
// points' span.
func counterRate(pts []Point, start, end time.Time, f func(Point) float64) float64 {
	inc, secs := windowIncrease(pts, start, end, f)
	if secs <= 0 {
		return 0
	}
	return inc / secs
}

// baselineRate is the idle rate: between the first and last points inside
// [start, end] when there are two, else counterRate. The load follows the
// idle window at once, and the interval straddling its end would mix the
// start of the warm-up into the baseline.
func baselineRate(pts []Point, start, end time.Time, f func(Point) float64) float64 {
	lo, hi := -1, -1
	for i, p := range pts {
		if known(f(p)) && !p.Time.Before(start) && !p.Time.After(end) {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 || hi == lo {
		return counterRate(pts, start, end, f)
	}
	return counterRate(pts, pts[lo].Time, pts[hi].Time, f)
}

// windowIncrease is a counter's increase over [start, end] cut to the
// points' span, and the seconds it covers: the increase between the points
// bracketing the window less the parts of the two straddling intervals
// that lie outside it (see outsidePart).
func windowIncrease(pts []Point, start, end time.Time, f func(Point) float64) (inc, secs float64) {
	if !end.After(start) {
		return 0, 0
	}
	lo, hi, ok := bracket(pts, start, end, f)
	if !ok {
		return 0, 0
	}
	if pts[lo].Time.After(start) {
		start = pts[lo].Time
	}
	if pts[hi].Time.Before(end) {
		end = pts[hi].Time
	}
	if !end.After(start) {
		return 0, 0
	}
	inc = increase(pts, lo, hi, f)
	inc -= outsidePart(pts, lo, nextKnown(pts, lo, f), prevKnown(pts, lo, f), start, f)
	inc -= outsidePart(pts, hi, prevKnown(pts, hi, f), nextKnown(pts, hi, f), end, f)
	return math.Max(0, inc), end.Sub(start).Seconds()
}

// outsidePart is the part of the increase from point edge (just outside
// the window) to point inner (the next one in) that was counted between
// edge and the window's edge t. It is charged at the rate of the interval
// beyond, from edge to point outer, capped at the whole increase; linear
// interpolation when there is no such interval (outer == edge). Why not
// always interpolate: a window is where a load ran, so the rate usually
// changes at its edges (idle, then an iteration starting; an iteration
// stopping, then idle). Spreading the straddling interval's increase evenly
// lost up to a quarter of a scrape interval of load at each edge (5% of a
// 5 s window at 1 s scrapes) and charged the idle baseline with the warm-up;
// the neighbour's rate is right for such a step, and when the rate does not
// change it is what interpolation would give.
func outsidePart(pts []Point, edge, inner, outer int, t time.Time, f func(Point) float64) float64 {
	step := stepIncrease(pts, edge, inner, f)
	span := seconds(pts[edge].Time, pts[inner].Time)
	out := seconds(pts[edge].Time, t)
	if span <= 0 || out <= 0 {
		return 0
	}
	if around := seconds(pts[edge].Time, pts[outer].Time); around > 0 {
		return math.Min(step, stepIncrease(pts, edge, outer, f)/around*out)
	}
	return step * math.Min(1, out/span)
}

// stepIncrease is what increase counts between points i and j, adjacent
// known points in either order: a fall (a reset) counts nothing.
func stepIncrease(pts []Point, i, j int, f func(Point) float64) float64 {
	return math.Max(0, f(pts[max(i, j)])-f(pts[min(i, j)]))
}

// seconds is the time between a and b in either order.
func seconds(a, b time.Time) float64 { return math.Abs(b.Sub(a).Seconds()) }

// nextKnown is the first point after i with a known value, else i.
func nextKnown(pts []Point, i int, f func(Point) float64) int {
	for j := i + 1; j < len(pts); j++ {
		if known(f(pts[j])) {
			return j
		}
	}
	return i
}

// prevKnown is the last point before i with a known value, else i.
func prevKnown(pts []Point, i int, f func(Point) float64) int {
	for j := i - 1; j >= 0; j-- {
		if known(f(pts[j])) {
			return j
		}
	}
	return i
}

// samples is the per-interval series over the bracketed window, each point
// stamped with the end of its interval relative to the window's start, and
// the highest CPU of the intervals whose middle falls inside the window.
func samples(pts []Point, start, end time.Time) (out []results.Sample, peak float64) {
	lo, hi, ok := bracket(pts, start, end, func(Point) float64 { return 0 })
	if !ok {
		return nil, 0
	}
	for i := lo + 1; i <= hi; i++ {
		a, b := pts[i-1], pts[i]
		dt := b.Time.Sub(a.Time).Seconds()
		if dt <= 0 {
			continue
		}
		s := results.Sample{T: round3(b.Time.Sub(start).Seconds()), Mem: orZero(b.MemBytes)}
		if known(a.CPUSeconds) && known(b.CPUSeconds) {
			s.CPU = math.Max(0, b.CPUSeconds-a.CPUSeconds) / dt
		}
		if dp := b.Periods - a.Periods; known(dp) && dp > 0 {
			s.Throttle = math.Max(0, b.ThrottledPeriods-a.ThrottledPeriods) / dp
		}
		out = append(out, s)
		if mid := a.Time.Add(b.Time.Sub(a.Time) / 2); !mid.Before(start) && !mid.After(end) {
			peak = math.Max(peak, s.CPU)
		}
	}
	return out, peak
}

func memory(u *results.ComponentUsage, pts []Point, w window) {
	mem := func(p Point) float64 { return p.MemBytes }
	if v, ok := lastKnown(pts, w.start, mem); ok {
		u.MemStart = v
	}
	var sum float64
	var n int
	for _, p := range pts {
		if !known(p.MemBytes) || p.Time.Before(w.start) || p.Time.After(w.end) {
			continue
		}
		sum += p.MemBytes
		n++
		u.MemPeak = math.Max(u.MemPeak, p.MemBytes)
	}
	if n > 0 {
		u.MemMean = sum / float64(n)
	} else {
		u.MemMean = u.MemStart
	}
	if u.MemStart == 0 && n > 0 {
		u.MemStart = firstKnown(pts, w.start, mem)
	}
	u.MemPeak = math.Max(u.MemPeak, u.MemStart)
}

func throttling(u *results.ComponentUsage, pts []Point, w window) {
	periods, secs := windowIncrease(pts, w.start, w.end, func(p Point) float64 { return p.Periods })
	if secs <= 0 {
		return
	}
	thr, _ := windowIncrease(pts, w.start, w.end, func(p Point) float64 { return p.ThrottledPeriods })
	u.Periods, u.ThrottledPeriods = int64(math.Round(periods)), int64(math.Round(thr))
	if periods > 0 {
		u.ThrottledRatio = thr / periods
	}
	u.ThrottledSeconds, _ = windowIncrease(pts, w.start, w.end, func(p Point) float64 { return p.ThrottledSeconds })
}

// lastKnown is the last known value at or before t, else the first known.
func lastKnown(pts []Point, t time.Time, f func(Point) float64) (float64, bool) {
	v, ok := math.NaN(), false
	for _, p := range pts {
		if x := f(p); known(x) {
			if p.Time.After(t) && ok {
				break
			}
			v, ok = x, true
			if p.Time.After(t) {
				break
			}
		}
	}
	return v, ok
}

func firstKnown(pts []Point, from time.Time, f func(Point) float64) float64 {
	for _, p := range pts {
		if x := f(p); known(x) && !p.Time.Before(from) {
			return x
		}
	}
	return 0
}

func orZero(v float64) float64 {
	if known(v) {
		return v
	}
	return 0
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
