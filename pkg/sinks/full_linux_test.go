package sinks_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
	"github.com/authbench/authbench/pkg/store"
)

// fill is a sink that fills the disk under the run directory, as another
// process writing there would between run.json and the derived files.
type fill struct{}

func (fill) Write(_ context.Context, o *runner.Outcome) error {
	f, err := os.Create(filepath.Join(filepath.Dir(o.Dir), ".filler"))
	if err != nil {
		return nil // already full
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			return nil
		}
	}
}

// TestDiskFullKeepsRunJSON: on a disk that fills up once run.json is
// written, summary.md cannot be, the run says so, and run.json holds the
// results. It needs a tmpfs (root).
func TestDiskFullKeepsRunJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", out, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("no tmpfs to fill: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(out, 0); err != nil {
			t.Errorf("unmounting %s: %v", out, err)
		}
	})
	var log bytes.Buffer
	ks := append([]runner.Sink{fill{}}, sinks.Standard(out, &log)...)
	res, err := runner.Run(context.Background(), runner.Options{Plan: stubPlan("http://127.0.0.1:1/"), Out: out,
		Executor: &stubExecutor{}, Log: &log, Sinks: ks})
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "run.json is written") {
		t.Fatalf("Run error = %v, want no space left, saying run.json is written", err)
	}
	back, rerr := store.Read(res.Dir)
	if rerr != nil || len(back.Results) != 3 {
		t.Fatalf("run.json: %v, %d results; want the 3 measured", rerr, len(back.Results))
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "summary.md")); err == nil {
		t.Error("summary.md was written on a full disk")
	}
}
