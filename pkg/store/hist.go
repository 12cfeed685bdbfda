package store

import (
	"fmt"
	"io"
	"os"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/results"
)

// ReadHistogramLog reads an HdrHistogram V2 interval log and merges its
// intervals into one histogram.
func ReadHistogramLog(path string) (*hdrhistogram.Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading histogram log: %w", err)
	}
	defer f.Close()
	return readHistogramLog(f, path)
}

// readHistogramLog merges the intervals of the log f, read up to
// boundedio.Histogram; path names it in errors.
func readHistogramLog(f io.Reader, path string) (*hdrhistogram.Histogram, error) {
	rd := hdrhistogram.NewHistogramLogReader(boundedio.NewReader(f, path, boundedio.Histogram))
	var merged *hdrhistogram.Histogram
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("reading histogram log %s: %w", path, err)
		}
		if h == nil {
			break
		}
		if merged == nil {
			merged = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		merged.Merge(h)
	}
	if merged == nil {
		return nil, fmt.Errorf("reading histogram log %s: no interval histogram", path)
	}
	return merged, nil
}

// ReadHistograms reads the .hlog of every result of run in dir, index for
// index with run.Results; nil where a result names no file. A named file
// that cannot be read is an error.
func ReadHistograms(dir string, run *results.Run) ([]*hdrhistogram.Histogram, error) {
	out := make([]*hdrhistogram.Histogram, len(run.Results))
	for i, r := range run.Results {
		if r.HistogramFile == "" {
			continue
		}
		h, err := ReadRunHistogram(dir, r.HistogramFile)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}
