package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// TestEndlessFilesRefused: a file that never ends (/dev/zero) is read up
// to its kind's bound and refused with the file named, instead of
// exhausting memory.
func TestEndlessFilesRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "-f", "/dev/zero", "--out", t.TempDir()},
		{"report", "/dev/zero"},
		{"compare", "/dev/zero", "/dev/zero"},
		{"import", "hey", "/dev/zero", "--name", "x", "--out", t.TempDir()},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := runCLI(t, args...)
			if r.code != ExitError || !strings.Contains(r.stderr, "/dev/zero is larger than") {
				t.Errorf("exit %d, stderr %q; want 1 and the bound named", r.code, r.stderr)
			}
		})
	}
}

// TestHistogramFileOutsideRunRefused: report and compare refuse a run.json
// whose histogram_file leads out of its run directory, and print nothing
// of the file it names.
func TestHistogramFileOutsideRunRefused(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "private.txt"), []byte("PRIVATE-CONTENT\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "runs", "r1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "r1", ID: "r1",
		Results: []results.Result{{Target: "t", Iteration: 1, Requests: 1, Successes: 1, HistogramFile: "../../private.txt"}}}
	if err := store.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"report", dir}, {"compare", dir, dir}} {
		t.Run(args[0], func(t *testing.T) {
			r := runCLI(t, args...)
			if r.code != ExitError || !strings.Contains(r.stderr, "histogram_file") || strings.Contains(r.stdout+r.stderr, "PRIVATE") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 naming histogram_file", r.code, r.stdout, r.stderr)
			}
		})
	}
}
