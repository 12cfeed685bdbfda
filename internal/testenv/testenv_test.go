package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a helper ended the test
// instead of ending the real one.
type recorder struct {
	testing.TB
	errors, fatals, skips []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatal(a ...any)            { r.fatals = append(r.fatals, fmt.Sprint(a...)); runtime.Goexit() }
func (r *recorder) Fatalf(f string, a ...any) { r.Fatal(fmt.Sprintf(f, a...)) }
func (r *recorder) Skip(a ...any)             { r.skips = append(r.skips, fmt.Sprint(a...)); runtime.Goexit() }
func (r *recorder) Skipf(f string, a ...any)  { r.Skip(fmt.Sprintf(f, a...)) }

// record runs f on a recorder in a goroutine of its own, so that a fatal
// or a skip ends only f.
func record(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.golden")
	tests := []struct {
		name     string
		stored   string // "" leaves no file
		got      string
		errorHas string
		fatal    bool
	}{
		{"equal", "a\nb\n", "a\nb\n", "", false},
		{"second line differs", "a\nb\n", "a\nc\n", "line 2", false},
		{"output longer", "a\n", "a\nb\n", "line 2", false},
		{"no golden file", "", "a\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Dir(path))
			if tt.stored != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(tt.stored), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := record(t, func(tb testing.TB) { Golden(tb, path, []byte(tt.got)) })
			if tt.fatal != (len(r.fatals) == 1) {
				t.Errorf("fatals %q, want fatal: %v", r.fatals, tt.fatal)
			}
			if tt.errorHas == "" && len(r.errors) > 0 || tt.errorHas != "" && (len(r.errors) != 1 || !strings.Contains(r.errors[0], tt.errorHas)) {
				t.Errorf("errors %q, want one naming %q", r.errors, tt.errorHas)
			}
		})
	}
}

func TestGoldenUpdateWrites(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "new", "out.golden")
	r := record(t, func(tb testing.TB) { Golden(tb, path, []byte("fresh\n")) })
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "fresh\n" || len(r.errors)+len(r.fatals) > 0 {
		t.Errorf("-update wrote %q (%v), errors %q %q", b, err, r.errors, r.fatals)
	}
}

func TestNeedTools(t *testing.T) {
	find := func(name string) (string, error) {
		if name == "here" {
			return "/bin/here", nil
		}
		return "", errors.New("not found")
	}
	r := record(t, func(tb testing.TB) {
		if got := NeedTools(tb, find, "apt-get install -y here", "here"); len(got) != 1 || got[0] != "/bin/here" {
			tb.Errorf("paths %q", got)
		}
	})
	if len(r.skips)+len(r.errors) > 0 {
		t.Errorf("a found tool: skips %q, errors %q", r.skips, r.errors)
	}
	r = record(t, func(tb testing.TB) { NeedTools(tb, find, "make lab installs it", "here", "gone") })
	if len(r.skips) != 1 || !strings.Contains(r.skips[0], "gone is not installed (make lab installs it)") {
		t.Errorf("a missing tool: skips %q, want one naming it and the hint", r.skips)
	}
}

func TestNeedLab(t *testing.T) {
	_, missing := FindTools(func(string) (string, error) { return "", errors.New("no") }, "hint", "etcd")
	tests := []struct {
		name        string
		err         error
		skip, fatal bool
	}{
		{"up", nil, false, false},
		{"tools missing", fmt.Errorf("starting: %w", missing), true, false},
		{"up failed", errors.New("port in use"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := record(t, func(tb testing.TB) { NeedLab(tb, tt.err) })
			if (len(r.skips) == 1) != tt.skip || (len(r.fatals) == 1) != tt.fatal {
				t.Errorf("skips %q fatals %q, want skip %v fatal %v", r.skips, r.fatals, tt.skip, tt.fatal)
			}
		})
	}
}
