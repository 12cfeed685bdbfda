// Package store keeps runs on disk: one directory per run holding run.json,
// timeline.json, summary.md and one HdrHistogram log per target x iteration.
// Every file is written atomically (temp file, fsync, rename) so that an
// interrupted run never leaves a half-written file behind.
package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/atomicfile"
	"github.com/authbench/authbench/pkg/results"
)

// DefaultRunsDir is the runs directory a run directory is created in
// when none is given (--out).
const DefaultRunsDir = "runs"

// DirTimeFormat is the UTC time prefix of run directory names. It sorts
// lexically in time order and contains no characters awkward in shells.
const DirTimeFormat = "20060102T150405Z"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SafeName turns a run or target name into something usable in a file name.
func SafeName(name string) string {
	s := strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-.")
	if s == "" {
		return "run"
	}
	return s
}

// NewRunDir creates OUT/<UTC time>-<name>/ and returns its path. If that
// directory exists (two runs in one second), a numeric suffix is added.
func NewRunDir(out, name string, t time.Time) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("creating runs directory: %w", err)
	}
	base := filepath.Join(out, t.UTC().Format(DirTimeFormat)+"-"+SafeName(name))
	dir := base
	for i := 2; ; i++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) {
			return "", fmt.Errorf("creating run directory: %w", err)
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// WriteFile writes data to path atomically (atomicfile.Write), with the
// permissions the user's umask leaves of 0666, as any tool's output.
func WriteFile(path string, data []byte) error {
	return atomicfile.Write(path, data, ResultMode)
}

// ResultMode is the permission results are created with, before the umask.
const ResultMode = 0o666

// WriteJSON marshals v with indentation and writes it atomically. HTML
// escaping is off: these files are read by people and tools, not browsers,
// and "<redacted, 43 chars>" should read as such.
func WriteJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	return WriteFile(path, buf.Bytes())
}

// Write writes run.json into dir atomically.
func Write(dir string, run *results.Run) error {
	return WriteJSON(filepath.Join(dir, results.RunFile), run)
}

// Read loads a run from a run directory or from a path to its run.json.
func Read(path string) (*results.Run, error) {
	file := path
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		file = filepath.Join(path, results.RunFile)
	}
	b, err := boundedio.ReadFile(file, boundedio.Run)
	if err != nil {
		return nil, fmt.Errorf("reading run: %w", err)
	}
	var run results.Run
	if err := json.Unmarshal(b, &run); err != nil {
		return nil, fmt.Errorf("reading run %s: %w", file, err)
	}
	if run.SchemaVersion > results.SchemaVersion {
		return nil, fmt.Errorf("reading run %s: schema version %d is newer than this authbench understands (%d)", file, run.SchemaVersion, results.SchemaVersion)
	}
	if err := checkRunFiles(file, &run); err != nil {
		return nil, err
	}
	return &run, nil
}

// Dir returns the run directory for a path given as a directory or run.json.
func Dir(path string) string {
	if filepath.Base(path) == results.RunFile {
		return filepath.Dir(path)
	}
	return path
}

// ReadTimeline loads timeline.json from a run directory; a run without one
// (an imported run) yields an empty timeline, not an error.
func ReadTimeline(dir string) (*results.Timeline, error) {
	b, err := boundedio.ReadFile(filepath.Join(Dir(dir), results.TimelineFile), boundedio.Run)
	if os.IsNotExist(err) {
		return &results.Timeline{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading timeline: %w", err)
	}
	var tl results.Timeline
	if err := json.Unmarshal(b, &tl); err != nil {
		return nil, fmt.Errorf("reading timeline: %w", err)
	}
	return &tl, nil
}

// HistogramFileName is the .hlog name for a target x iteration.
func HistogramFileName(target string, iteration int) string {
	return fmt.Sprintf("%s-iter%d.hlog", SafeName(target), iteration)
}

// ListFiles names the files of a run directory, plus those about to be
// written (extra), sorted; temp files (dot files) are left out.
func ListFiles(dir string, extra ...string) []string {
	seen := map[string]bool{}
	for _, x := range extra {
		seen[x] = true
	}
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		if !en.IsDir() && !strings.HasPrefix(en.Name(), ".") {
			seen[en.Name()] = true
		}
	}
	files := make([]string, 0, len(seen))
	for f := range seen {
		files = append(files, f)
	}
	sort.Strings(files)
	return files
}
