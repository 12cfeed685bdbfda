package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

// testSink is a FileSink that checks run.json is on disk when it runs,
// then writes its file, or fails.
type testSink struct {
	name    string
	fail    error
	sawRun  bool
	written int
}

func (k *testSink) File() string { return k.name }

func (k *testSink) Write(_ context.Context, o *Outcome) error {
	_, err := os.Stat(filepath.Join(o.Dir, results.RunFile))
	k.sawRun = err == nil
	if k.fail != nil {
		return k.fail
	}
	k.written++
	return store.WriteFile(filepath.Join(o.Dir, k.name), []byte("derived\n"))
}

// TestRecordRunJSONFirst: run.json is on disk before any sink runs and
// lists the sinks' files; a sink that fails is the run's error, the
// sinks after it still run, and run.json stays, listing what is there.
func TestRecordRunJSONFirst(t *testing.T) {
	broken := errors.New("no space left on device")
	tests := []struct {
		name      string
		fail      error
		wantFiles []string
	}{
		{"every sink writes", nil, []string{"a.md", "b.html", results.RunFile, results.TimelineFile}},
		{"a derived file fails", broken, []string{"b.html", results.RunFile, results.TimelineFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := &testSink{name: "a.md", fail: tt.fail}, &testSink{name: "b.html"}
			out, err := Run(context.Background(), Options{Plan: stubPlan("http://127.0.0.1:1/"), Out: t.TempDir(),
				Executor: &stubExecutor{}, Sinks: []Sink{a, b}})
			if !errors.Is(err, tt.fail) || (tt.fail != nil && !strings.Contains(err.Error(), results.RunFile+" is written")) {
				t.Fatalf("Run error = %v, want %v saying run.json is written", err, tt.fail)
			}
			if !a.sawRun || !b.sawRun || b.written != 1 {
				t.Errorf("sinks saw run.json: %v, %v; second sink wrote %d times, want 1", a.sawRun, b.sawRun, b.written)
			}
			back, rerr := store.Read(out.Dir)
			if rerr != nil {
				t.Fatalf("run.json lost: %v", rerr)
			}
			files := slices.DeleteFunc(back.Files, func(f string) bool { return strings.HasSuffix(f, ".hlog") })
			if !slices.Equal(files, tt.wantFiles) {
				t.Errorf("run.json lists %v, want %v", files, tt.wantFiles)
			}
		})
	}
}
