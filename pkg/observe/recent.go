package observe

import (
	"time"

	"github.com/authbench/authbench/pkg/results"
)

// Recent summarises every polled component over the last d of its
// readings (up to its latest), for a live view. It takes no reading of
// its own, so that watching a run leaves its samples as they are; range
// queriers (Prometheus) are left out, their scrapes being too sparse for
// seconds. Components with fewer than two readings are left out too.
func (m *Monitor) Recent(d time.Duration) []results.ComponentUsage {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []results.ComponentUsage
	for i, s := range m.samplers {
		if _, ok := s.(Poller); !ok {
			continue
		}
		for j, c := range s.Components() {
			if j >= len(m.series[i]) {
				continue
			}
			if u, ok := recent(c, s.Source(), m.series[i][j], d); ok {
				out = append(out, u)
			}
		}
	}
	return out
}

// recent summarises the window of d ending at the last of pts, reading
// only their tail (a run's series grows by one point a second).
func recent(c Component, source string, pts []Point, d time.Duration) (results.ComponentUsage, bool) {
	if len(pts) < 2 {
		return results.ComponentUsage{}, false
	}
	end := pts[len(pts)-1].Time
	start := end.Add(-d)
	lo := len(pts) - 1
	for lo > 0 && pts[lo].Time.After(start) {
		lo--
	}
	u := summarize(c, source, pts[lo:], window{start: start, end: end})
	u.Samples = nil
	return u, true
}
