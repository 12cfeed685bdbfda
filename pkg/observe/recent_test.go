package observe

import (
	"math"
	"testing"
	"time"
)

// TestRecentReadsTheTail checks the live figures: the last seconds' CPU,
// limit and throttled share, from the readings already taken.
func TestRecentReadsTheTail(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	var pts []Point
	for i := range 11 {
		cores, thr := 0.2, 0.0
		if i > 7 { // the last three seconds: busier and throttled
			cores, thr = 0.8, 0.5
		}
		p := unknownPoint(t0.Add(time.Duration(i) * time.Second))
		if i > 0 {
			prev := pts[i-1]
			p.CPUSeconds, p.Periods, p.ThrottledPeriods = prev.CPUSeconds+cores, prev.Periods+10, prev.ThrottledPeriods+10*thr
		} else {
			p.CPUSeconds, p.Periods, p.ThrottledPeriods = 0, 0, 0
		}
		p.CPULimit, p.MemBytes = 1, 1<<20
		pts = append(pts, p)
	}
	m := NewMonitor([]Sampler{&steadyPoller{}}, 0)
	m.series[0] = [][]Point{pts, pts[:1]}
	us := m.Recent(3 * time.Second)
	if len(us) != 1 {
		t.Fatalf("got %d components, want the one with readings: %+v", len(us), us)
	}
	u := us[0]
	if math.Abs(u.CPUMean-0.8) > 1e-9 || u.CPULimit != 1 || math.Abs(u.ThrottledRatio-0.5) > 1e-9 {
		t.Errorf("last 3 s: cpu %v limit %v throttled %v, want 0.8, 1, 0.5", u.CPUMean, u.CPULimit, u.ThrottledRatio)
	}
	if u.Name != "steady" || u.Samples != nil {
		t.Errorf("usage %+v: want steady, without samples", u)
	}
	if n := len(m.series[0][0]); n != len(pts) {
		t.Errorf("Recent took a reading: %d points, want %d", n, len(pts))
	}
}
