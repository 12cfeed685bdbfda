//go:build integration

package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/install"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/store"
)

func TestMain(m *testing.M) {
	// lab.Up starts this test binary as the lab's supervisor.
	lab.ServeIfAsked()
	os.Exit(m.Run())
}

// TestDemo is `make demo` with a small load: it must start the lab, run
// both stacks alike, write both summaries and the comparison, print the
// verdict with the 3x/2x ratios, and leave no lab running.
func TestDemo(t *testing.T) {
	if _, err := install.ToolPath("kube-apiserver"); err != nil {
		t.Skipf("the lab's tools are not installed (`make lab` installs them): %v", err)
	}
	labDir := filepath.Join(install.CacheDir(), "lab-demo-integration")
	var stdout, log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	out, err := Run(ctx, Options{
		Requests: 300, Concurrency: 10, Iterations: 2,
		LabDir: labDir, Out: t.TempDir(), Version: "test",
		Stdout: &stdout, Log: &log,
		Supervisor: []string{os.Args[0], "-test.run=^$"},
	})
	if err != nil {
		t.Fatalf("demo: %v\nlog:\n%s", err, log.String())
	}
	if len(out.Runs) != 2 {
		t.Fatalf("want a run per stack, got %d", len(out.Runs))
	}
	for _, r := range out.Runs {
		run, err := store.Read(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Results) != 2 {
			t.Errorf("%s: want 2 iterations, got %d", run.Name, len(run.Results))
		}
		for _, res := range run.Results {
			if res.Requests != 300 || res.Successes != 300 {
				t.Errorf("%s iteration %d: %d requests, %d successes; alice's token must pass both stacks",
					run.Name, res.Iteration, res.Requests, res.Successes)
			}
			if len(res.Components) == 0 {
				t.Errorf("%s: no component was sampled", run.Name)
			}
		}
		if run.Lab == nil || len(run.Lab.Components) == 0 {
			t.Errorf("%s: run.json does not record the lab", run.Name)
		}
		if _, err := os.Stat(filepath.Join(r.Dir, results.SummaryFile)); err != nil {
			t.Errorf("%s: %v", run.Name, err)
		}
	}
	if _, err := os.Stat(out.CompareFile); err != nil {
		t.Errorf("comparison not written: %v", err)
	}
	v := stdout.String()
	for _, want := range []string{"Verdict", "demo-lab-2x", "demo-lab-3x", "throughput", "summary:", "comparison:"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v)
		}
	}
	if !strings.Contains(v, "x slower") && !strings.Contains(v, "x faster") && !strings.Contains(v, "within noise") {
		t.Errorf("verdict gives no 3x/2x ratio:\n%s", v)
	}
	if _, err := lab.Open(labDir).Components(); err == nil {
		t.Errorf("the demo left its lab running in %s", labDir)
	}
}
