package load

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/authbench/authbench/pkg/plan"
)

func TestHistogramLog(t *testing.T) {
	t.Parallel() // mostly waiting on timers
	for _, tc := range []struct {
		name      string
		spec      Spec
		intervals int // at least
	}{
		{"closed", Spec{Requests: 500, Concurrency: 5}, 1},
		{"open over seconds", Spec{Rate: 300, Duration: 1500 * time.Millisecond, Concurrency: 5}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := countingServer(t)
			var buf bytes.Buffer
			m, r := runAttack(t, attacker(t, plan.Client{}), Request{URL: s.URL}, tc.spec, WithHistogramLog(&buf))
			if m.LogErr() != nil {
				t.Fatal(m.LogErr())
			}
			for _, want := range []string{"#[Histogram log format version 1.3]", "#[StartTime: ", "#[BaseTime: ", `"StartTimestamp","Interval_Length"`, "microseconds"} {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, buf.String())
				}
			}
			rd := hdr.NewHistogramLogReader(&buf)
			var total int64
			var n int
			var last int64
			for {
				h, err := rd.NextIntervalHistogram()
				if err != nil {
					t.Fatal(err)
				}
				if h == nil {
					break
				}
				n++
				total += h.TotalCount()
				// Intervals are absolute, contiguous and in the run. The log
				// holds exact milliseconds, but the library's reader turns
				// "48.706" s into int64(48.706*1000.0), which may truncate to
				// 48705: one millisecond of slack on every edge.
				if h.StartTimeMs() < r.Start.UnixMilli()-1 || h.EndTimeMs() > r.End.UnixMilli()+1 || (last != 0 && absMs(h.StartTimeMs()-last) > 1) {
					t.Errorf("interval %d..%d outside run %d..%d or not contiguous", h.StartTimeMs(), h.EndTimeMs(), r.Start.UnixMilli(), r.End.UnixMilli())
				}
				last = h.EndTimeMs()
				if h.TotalCount() > 0 && (h.Max() < 1 || h.Max() > 60_000_000) {
					t.Errorf("interval max %dµs: values must be microseconds", h.Max())
				}
			}
			if total != r.Requests || n < tc.intervals || n != len(m.Series()) {
				t.Errorf("log holds %d values in %d intervals; requests %d, timeline points %d", total, n, r.Requests, len(m.Series()))
			}
		})
	}
}

func absMs(d int64) int64 {
	if d < 0 {
		return -d
	}
	return d
}
