package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// ReadCapacitySearches reads a capacity run's searches.
func ReadCapacitySearches(runDir string) ([]results.CapacitySearch, error) {
	b, err := boundedio.ReadFile(filepath.Join(store.Dir(runDir), results.CapacityFile), boundedio.Run)
	if err != nil {
		return nil, fmt.Errorf("reading capacity search: %w", err)
	}
	var out []results.CapacitySearch
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("reading capacity search of %s: %w", runDir, err)
	}
	return out, nil
}

// localCapacityPoint reads what a capacity run's history row needs
// (capacity.json and the steps' .hlog files) for analyze.CapacityPoint.
func localCapacityPoint(p analyze.HistoryPoint, run *results.Run, runsDir string) (analyze.HistoryPoint, error) {
	dir := p.Row.Dir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(runsDir, dir)
	}
	searches, err := ReadCapacitySearches(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return p, err // fs.ErrNotExist: interrupted before the file was written
	}
	var s results.CapacitySearch
	for _, x := range searches {
		if x.Target == p.Row.Target {
			s = x
		}
	}
	hs, err := store.ReadHistograms(dir, run)
	if err != nil {
		return p, err
	}
	return analyze.CapacityPoint(p, run, s, hs), nil
}
