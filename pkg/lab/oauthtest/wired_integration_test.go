//go:build integration

package oauthtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/authbench/authbench/pkg/analyze"
	"github.com/authbench/authbench/pkg/auth"
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
	"github.com/authbench/authbench/pkg/lab/sampling"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
	"github.com/authbench/authbench/pkg/stacks"
)

// Once wired (runner.Observe -> Options.Reviews), every iteration records
// the API server's reviews in run.json and the summary.
func TestReviewsInRunJSON(t *testing.T) {
	p := labPlan(t, stacks.Target3xOAuth)
	// Tokens no other test of this lab sends: a proxy caches a token's
	// review for 2 minutes, and a token the ladder test sent to the sidecar's
	// rung would be answered from its cache here.
	p.Targets[0].Token = &auth.Spec{Pool: &auth.Pool{File: poolSlice(t, 4000, 5000)}}
	p.Load = plan.Load{Requests: 300, Concurrency: 8, Iterations: 2}
	obs, err := sampling.Observe(t.Context(), p, sampling.Options{LabDir: labDir, Platforms: []lab.Platform{processes.Platform{}}})
	if err != nil {
		t.Fatal(err)
	}
	if obs.Reviews == nil {
		t.Fatal("Observe gave no review counter for the lab")
	}
	dir := t.TempDir()
	out, err := runner.Run(t.Context(), runner.Options{Plan: p, Out: dir, Monitor: obs.Monitor, Lab: obs.Lab, Reviews: obs.Reviews,
		Sinks: sinks.Standard(dir, nil)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Run.Results {
		if r.APIServer == nil || r.APIServer.TokenReviews != 2*r.Requests {
			t.Errorf("iteration %d: %+v, want %d TokenReviews", r.Iteration, r.APIServer, 2*r.Requests)
		}
	}
	for _, f := range out.Run.Findings {
		t.Logf("finding %s: %s", f.Kind, f.Evidence)
	}
	_ = analyze.KindAPIServerReviews
	b, err := os.ReadFile(filepath.Join(out.Dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "## API Server Reviews")
	if i < 0 {
		t.Fatalf("summary has no API Server Reviews section")
	}
	t.Logf("%s", string(b)[i:min(len(b), i+1200)])
}
