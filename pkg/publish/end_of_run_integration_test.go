//go:build integration

package publish_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/capacity"
	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/publish"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
)

func init() { publish.EndOfRunCheck = checkEndOfRun }

// checkEndOfRun: a run whose scenario has a publish block, a run with
// only AUTHBENCH_OPENSEARCH_URL, and a capacity run are each found in the
// index once they return, the capacity run's steps marked with their kind
// and offered rate; a run told of a server that is down is saved anyway.
func checkEndOfRun(t *testing.T, url string) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer target.Close()
	ctx, out, index := context.Background(), t.TempDir(), "authbench-endofrun"
	newPlan := func(name string) *plan.Plan {
		return &plan.Plan{Name: name, Targets: []plan.Target{{Name: "api", URL: target.URL}},
			Load: plan.Load{Requests: 50, Concurrency: 2, Iterations: 2}}
	}
	var log bytes.Buffer
	t.Setenv(publish.EnvURL, "")
	p := newPlan("by-block")
	p.Publish = &plan.Publish{URL: url, Index: index}
	byBlock, err := runner.Run(ctx, runner.Options{Plan: p, Out: out, Log: &log, Sinks: sinks.Standard(out, &log)})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(publish.EnvURL, url)
	t.Setenv(publish.EnvIndex, index)
	byEnv, err := runner.Run(ctx, runner.Options{Plan: newPlan("by-env"), Out: out, Log: &log, Sinks: sinks.Standard(out, &log)})
	if err != nil {
		t.Fatal(err)
	}
	cp := newPlan("by-capacity")
	cp.SLO = &plan.SLO{P99: plan.Duration(time.Second)}
	capOut, err := runner.Capacity(ctx, runner.CapacityOptions{Options: runner.Options{Plan: cp, Out: out, Log: &log, Sinks: sinks.Standard(out, &log)},
		Search: capacity.Options{Min: 20, Max: 40, Repeats: 1, Budget: 10 * time.Second}, Step: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "published 1 run(s)"); n != 3 {
		t.Errorf("log says published %d times, want 3:\n%s", n, log.String())
	}
	c, err := publish.NewClient(ctx, publish.Config{URL: url, Index: index})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []*runner.Outcome{byBlock, byEnv, &capOut.Outcome} {
		docs, err := c.Search(ctx, publish.Query{RunID: o.Run.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != len(o.Run.Results) || len(docs) == 0 {
			t.Fatalf("%s: %d documents in the index, want %d", o.Run.Name, len(docs), len(o.Run.Results))
		}
		for i, d := range docs {
			r := o.Run.Results[i]
			if o.Run.Kind != results.KindCapacity {
				if d.Kind != "" || d.Capacity != nil {
					t.Errorf("%s: load document marked %q %+v", o.Run.Name, d.Kind, d.Capacity)
				}
				continue
			}
			if d.Kind != results.KindCapacity || d.Capacity == nil || d.Capacity.OfferedRPS != r.TargetRPS ||
				d.Capacity.CapacityRPS != capOut.Searches[0].Capacity {
				t.Errorf("capacity step %d: kind %q %+v, want offered %g, capacity %g", d.Iteration, d.Kind, d.Capacity, r.TargetRPS, capOut.Searches[0].Capacity)
			}
		}
	}
	t.Setenv(publish.EnvURL, "http://127.0.0.1:1")
	log.Reset()
	down, err := runner.Run(ctx, runner.Options{Plan: newPlan("server-down"), Out: out, Log: &log, Sinks: sinks.Standard(out, &log)})
	if err != nil || down.Dir == "" || !strings.Contains(log.String(), "warning: publishing the run") {
		t.Errorf("server down: %v, dir %q, log %s", err, down.Dir, log.String())
	}
}
