package load

import (
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// hlogWriter streams interval histograms in the HdrHistogram V2 log format.
// The encoded histograms hold microseconds, the histograms' own unit. The
// Interval_Max column is the library's default scaling (value / 1e6), which
// for microseconds reads as seconds; the header comment says so.
type hlogWriter struct {
	lw  *hdr.HistogramLogWriter
	err error
}

func newHlogWriter(w io.Writer, start time.Time) *hlogWriter {
	h := &hlogWriter{lw: hdr.NewHistogramLogWriter(w)}
	// The writer prints BaseTime in whole seconds, so the base is the start
	// truncated to a second; interval timestamps stay exact relative to it.
	base := start.Truncate(time.Second).UnixMilli()
	h.lw.SetBaseTime(base)
	h.do(h.lw.OutputLogFormatVersion)
	h.do(func() error {
		return h.lw.OutputComment("[authbench: latency in microseconds, corrected for coordinated omission; Interval_Max in seconds]")
	})
	h.do(func() error { return h.lw.OutputStartTime(start.UnixMilli()) })
	h.do(func() error { return h.lw.OutputBaseTime(base) })
	h.do(h.lw.OutputLegend)
	return h
}

func (h *hlogWriter) do(f func() error) {
	if h.err == nil {
		h.err = f()
	}
}

func (h *hlogWriter) interval(hist *hdr.Histogram, from, to time.Time) {
	hist.SetStartTimeMs(from.UnixMilli())
	hist.SetEndTimeMs(to.UnixMilli())
	h.do(func() error { return h.lw.OutputIntervalHistogram(hist) })
}
