package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/boundedio"
	"github.com/authbench/authbench/pkg/results"
)

// TestReadRefusesHistogramOutsideRun: run.json naming a histogram file
// outside its directory is refused when read, so report, compare, history
// and publish never open it.
func TestReadRefusesHistogramOutsideRun(t *testing.T) {
	for _, name := range []string{"../../private.txt", "/etc/passwd", "a/../../x.hlog", ""} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "x",
				Results: []results.Result{{Target: "t", Iteration: 1, HistogramFile: name}}}
			if err := Write(dir, run); err != nil {
				t.Fatal(err)
			}
			_, err := Read(dir)
			if name == "" {
				if err != nil {
					t.Fatalf("a run without a histogram file: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "results[0].histogram_file") || !strings.Contains(err.Error(), name) {
				t.Errorf("got %v, want the field and %q named", err, name)
			}
		})
	}
}

// TestReadRunHistogramStaysInside: a symbolic link inside the run
// directory does not lead out of it either.
func TestReadRunHistogramStaysInside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "private.hlog")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "t-iter1.hlog")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"t-iter1.hlog", "../private.hlog", outside} {
		if _, err := ReadRunHistogram(dir, name); err == nil {
			t.Errorf("%s: read a file outside the run directory", name)
		}
	}
}

// TestReadBounded: a run.json or a histogram log that never ends stops at
// its bound with the file named.
func TestReadBounded(t *testing.T) {
	_, err := Read("/dev/zero")
	if !errors.Is(err, boundedio.ErrTooLarge) || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("run.json: got %v", err)
	}
	_, err = ReadHistogramLog("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("histogram log: got %v", err)
	}
}
