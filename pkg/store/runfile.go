package store

import (
	"fmt"
	"os"
	"path/filepath"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/authbench/authbench/pkg/results"
)

// checkRunFiles refuses a run whose results name a histogram file outside
// its run directory: run.json is data a user may have been handed, and
// report, compare, history and publish would read whatever it points at.
func checkRunFiles(file string, run *results.Run) error {
	for i, r := range run.Results {
		if err := CheckRunFile(r.HistogramFile); r.HistogramFile != "" && err != nil {
			return fmt.Errorf("reading run %s: results[%d].histogram_file: %w", file, i, err)
		}
	}
	return nil
}

// CheckRunFile reports why name cannot be a file of a run directory: it
// must be a relative path that stays inside it (filepath.IsLocal).
func CheckRunFile(name string) error {
	if !filepath.IsLocal(name) {
		return fmt.Errorf("%q is not a file inside the run directory (no absolute path, no \"..\")", name)
	}
	return nil
}

// ReadRunHistogram reads the histogram log name of the run directory dir
// (a directory or its run.json). Neither an absolute path, nor "..", nor
// a symbolic link leads out of the directory (os.OpenInRoot).
func ReadRunHistogram(dir, name string) (*hdrhistogram.Histogram, error) {
	if err := CheckRunFile(name); err != nil {
		return nil, fmt.Errorf("reading histogram log: %w", err)
	}
	f, err := os.OpenInRoot(Dir(dir), name)
	if err != nil {
		return nil, fmt.Errorf("reading histogram log: %w", err)
	}
	defer f.Close()
	return readHistogramLog(f, f.Name())
}
