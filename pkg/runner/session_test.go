package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
)

// stubExecutor stands for a remote executor: it returns results without
// sending anything, and says the phase was cut short from phase cut on.
type stubExecutor struct {
	prepared []plan.Target
	phases   int
	cut      int
}

func (e *stubExecutor) Prepare(_ context.Context, _ plan.Client, ts []plan.Target) error {
	e.prepared = ts
	return nil
}

func (e *stubExecutor) Probe(_ context.Context, i int) results.TargetFingerprint {
	return results.TargetFingerprint{Target: e.prepared[i].Name, URL: e.prepared[i].URL, Status: 200}
}

func (e *stubExecutor) Execute(_ context.Context, ph Phase) (*Measured, error) {
	e.phases++
	now := time.Now()
	if ph.HistogramLog != nil {
		io.WriteString(ph.HistogramLog, "#[stub]\n")
	}
	return &Measured{Result: results.Result{Requests: 10, Successes: 10, Start: now, End: now},
		Partial: e.cut > 0 && e.phases >= e.cut}, nil
}

func (e *stubExecutor) Close() error { return nil }

func stubPlan(url string) *plan.Plan {
	return &plan.Plan{Name: "seam", Targets: []plan.Target{{Name: "t", URL: url}},
		Load: plan.Load{Requests: 10, Concurrency: 1, Iterations: 3}}
}

func TestRunThroughExecutor(t *testing.T) {
	tests := []struct {
		name        string
		cut         int
		wantResults int
		wantErr     error
	}{
		{"complete", 0, 3, nil},
		{"interrupted in iteration 2", 2, 2, ErrInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &stubExecutor{cut: tt.cut}
			out, err := Run(context.Background(), Options{Plan: stubPlan("http://127.0.0.1:1/"), Out: t.TempDir(), Executor: ex,
				CommandLine: []string{"authbench", "run", "--token", "s3cret-value"}})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run error = %v, want %v", err, tt.wantErr)
			}
			if out == nil || len(out.Run.Results) != tt.wantResults || out.Run.Partial != (tt.wantErr != nil) {
				t.Fatalf("outcome = %+v, want %d results, partial %v", out, tt.wantResults, tt.wantErr != nil)
			}
			if out.Run.Results[0].HistogramFile == "" {
				t.Error("the executor's histogram log was not kept")
			}
			b, err := os.ReadFile(filepath.Join(out.Dir, results.RunFile))
			if err != nil || strings.Contains(string(b), "s3cret-value") {
				t.Errorf("run.json: %v, or it records the token", err)
			}
		})
	}
}
