// Package testenv is the test harness every package shares: golden files
// refreshed with -update, and the checks that skip a test whose tools are
// missing or fail it when the lab it needs did not come up.
//
// It imports nothing of authbench's, so that any package's tests (the tool
// cache's included) can use it without an import cycle.
package testenv

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is registered once, here, for every test binary that links this
// package: `go test ./pkg/x -update` rewrites pkg/x's golden files.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Golden compares got with the golden file at path (slash-separated,
// relative to the package's directory), or writes got there with -update.
// A difference names the first differing line and shows the whole output.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	path = filepath.FromSlash(path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (rerun with -update to create it): %v", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	line, g, w := firstDiff(string(got), string(want))
	t.Errorf("%s differs at line %d (rerun with -update if the change is intended):\n got: %q\nwant: %q\nfull output:\n%s",
		path, line, g, w, got)
}

// firstDiff is the first line (1-based) where got and want differ, and
// that line of each.
func firstDiff(got, want string) (int, string, string) {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return i + 1, gl, wl
		}
	}
	return 0, "", ""
}

// Finder finds a tool by name: exec.LookPath for the system's commands,
// or the tool cache's lookup for the lab's pinned tools.
type Finder func(name string) (string, error)

// MissingError says a tool a test needs is not installed, and how to get it.
// NeedLab skips on it instead of failing.
type MissingError struct {
	Name string // the tool
	Hint string // how to install it, e.g. "`make lab` installs it"
	Err  error  // what the finder said
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s is not installed (%s): %v", e.Name, e.Hint, e.Err)
}

func (e *MissingError) Unwrap() error { return e.Err }

// FindTools finds every name with find, in order, or returns a
// *MissingError naming the first one missing. For TestMain, which has no t.
func FindTools(find Finder, hint string, names ...string) ([]string, error) {
	paths := make([]string, 0, len(names))
	for _, n := range names {
		p, err := find(n)
		if err != nil {
			return nil, &MissingError{Name: n, Hint: hint, Err: err}
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// NeedTools skips t unless find finds every name, naming the missing tool
// and hint; it returns their paths in order.
func NeedTools(t testing.TB, find Finder, hint string, names ...string) []string {
	t.Helper()
	paths, err := FindTools(find, hint, names...)
	if err != nil {
		t.Skip(err.Error())
	}
	return paths
}

// NeedLab stops a test that needs its binary's shared lab when the lab is
// not there: err is what starting it returned. A *MissingError (its tools
// are not installed here) skips the test; any other error fails it, since
// a lab that should have come up and did not is a failure, not a reason
// to skip.
func NeedLab(t testing.TB, err error) {
	t.Helper()
	var missing *MissingError
	switch {
	case err == nil:
	case errors.As(err, &missing):
		t.Skipf("the lab's tools are not installed: %v", missing)
	default:
		t.Fatalf("lab up failed: %v", err)
	}
}
