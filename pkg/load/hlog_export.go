package load

import (
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// HistogramLog writes an HdrHistogram V2 interval log in the engine's own
// format (headers, units, legend), for intervals measured elsewhere and
// merged here: the pods of a cluster run write through it.
type HistogramLog struct{ w *hlogWriter }

// NewHistogramLog starts a log whose StartTime is start.
func NewHistogramLog(w io.Writer, start time.Time) *HistogramLog {
	return &HistogramLog{w: newHlogWriter(w, start)}
}

// Interval appends one interval histogram (µs) covering [from, to).
func (l *HistogramLog) Interval(h *hdr.Histogram, from, to time.Time) { l.w.interval(h, from, to) }

// Err is the first write error, if any.
func (l *HistogramLog) Err() error { return l.w.err }

// NewHistogram returns an empty histogram of the engine's range and
// precision (µs, 1 µs to 1 h, 3 digits), to merge measured ones into.
func NewHistogram() *hdr.Histogram { return hdr.New(histMin, histMax, histDigits) }
