package sinks_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/pkg/plan"
	"github.com/authbench/authbench/pkg/publish"
	"github.com/authbench/authbench/pkg/results"
	"github.com/authbench/authbench/pkg/runner"
	"github.com/authbench/authbench/pkg/sinks"
	"github.com/authbench/authbench/pkg/store"
)

// stubExecutor returns results without sending anything, and says the
// phase was cut short from phase cut on.
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

func (e *stubExecutor) Execute(_ context.Context, ph runner.Phase) (*runner.Measured, error) {
	e.phases++
	now := time.Now()
	if ph.HistogramLog != nil {
		io.WriteString(ph.HistogramLog, "#[stub]\n")
	}
	return &runner.Measured{Result: results.Result{Requests: 10, Successes: 10, Start: now, End: now},
		Partial: e.cut > 0 && e.phases >= e.cut}, nil
}

func (e *stubExecutor) Close() error { return nil }

func stubPlan(url string) *plan.Plan {
	return &plan.Plan{Name: "seam", Targets: []plan.Target{{Name: "t", URL: url}},
		Load: plan.Load{Requests: 10, Concurrency: 1, Iterations: 3}}
}

// A run whose server cannot be reached is saved and succeeds; the
// failure is a warning. An interrupted run is not published.
func TestPublishAtEndOfRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	tests := []struct {
		name     string
		block    *plan.Publish
		env      string
		cut      int
		wantErr  error
		wantLog  string
		withhold string
	}{
		{"block names a server that is down", &plan.Publish{URL: "http://127.0.0.1:1", Index: "runs"}, "", 0, nil, "warning: publishing the run", ""},
		{"environment names a server that is down", nil, "http://127.0.0.1:1", 0, nil, "warning: publishing the run", ""},
		{"interrupted run", nil, "http://127.0.0.1:1", 2, runner.ErrInterrupted, "not published: the run was interrupted", "warning"},
		{"no server", nil, "", 0, nil, "", "publish"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(publish.EnvURL, tt.env)
			p := stubPlan(srv.URL)
			p.Publish = tt.block
			var log bytes.Buffer
			out := t.TempDir()
			o := runner.Options{Plan: p, Out: out, Log: &log, Sinks: sinks.Standard(out, &log)}
			if tt.cut > 0 {
				o.Executor = &stubExecutor{cut: tt.cut}
			}
			res, err := runner.Run(context.Background(), o)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run: %v, want %v", err, tt.wantErr)
			}
			if _, err := os.Stat(filepath.Join(res.Dir, results.RunFile)); err != nil {
				t.Errorf("run not saved: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(res.Dir, results.RunFile)); strings.Contains(string(b), "s3cret-tok") {
				t.Error("run.json records the publish URL's token")
			}
			if !strings.Contains(log.String(), tt.wantLog) || (tt.withhold != "" && strings.Contains(log.String(), tt.withhold)) {
				t.Errorf("log %q: want %q, not %q", log.String(), tt.wantLog, tt.withhold)
			}
		})
	}
}

// A publish block the plan's rules refuse stops the run before any load,
// naming the setting and never quoting its token.
func TestPublishBlockRefusedBeforeLoad(t *testing.T) {
	p := stubPlan("http://127.0.0.1:1/")
	p.Publish = &plan.Publish{URL: "http://127.0.0.1:1/?access_token=s3cret-tok"}
	ex := &stubExecutor{}
	out := t.TempDir()
	_, err := runner.Run(context.Background(), runner.Options{Plan: p, Out: out, Executor: ex, Sinks: sinks.Standard(out, io.Discard)})
	if err == nil || !strings.Contains(err.Error(), "publish.url") || !strings.Contains(err.Error(), "want no query") ||
		strings.Contains(err.Error(), "s3cret-tok") {
		t.Fatalf("Run error = %v, want publish.url refused without its token", err)
	}
	if ex.phases != 0 {
		t.Errorf("%d phases ran before the plan was refused", ex.phases)
	}
}

// TestRunJSONRedactsURLs: a URL's password and token parameters reach the
// engine but never run.json or summary.md.
func TestRunJSONRedactsURLs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	url := strings.Replace(srv.URL, "http://", "http://alice:pa55word@", 1) + "/?access_token=tok-123456"
	dir := t.TempDir()
	out, err := runner.Run(context.Background(), runner.Options{Plan: stubPlan(url), Out: dir, Sinks: sinks.Standard(dir, io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Run.Results[0].Successes == 0 {
		t.Fatalf("the engine did not get the real URL: %+v", out.Run.Results[0])
	}
	for _, f := range []string{results.RunFile, results.SummaryFile} {
		b, err := os.ReadFile(filepath.Join(out.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"pa55word", "tok-123456"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s records %q", f, secret)
			}
		}
	}
}

// TestSaveWritesLikeASession: an imported run gets the directory a
// measured run gets (summary.md, run.json listing its files, the history
// index), without a timeline it does not have, and its URLs redacted.
func TestSaveWritesLikeASession(t *testing.T) {
	out := t.TempDir()
	start := time.Date(2025, 11, 17, 9, 30, 0, 0, time.UTC)
	run := &results.Run{SchemaVersion: results.SchemaVersion, Name: "hey-3x", ID: "hey-3x-1", Start: start, End: start.Add(time.Minute),
		Plan: plan.Plan{Name: "hey-3x", Targets: []plan.Target{{Name: "t", URL: "https://u:hunter22@127.0.0.1/x"}},
			Load: plan.Load{Requests: 100, Concurrency: 10, Iterations: 1}},
		Imported: &results.Import{Tool: "hey", Files: []string{"3x.txt"}},
		Results: []results.Result{{Target: "t", Iteration: 1, Model: plan.Closed, Requests: 100, Successes: 100, SuccessRate: 1,
			ThroughputRPS: 50, DurationS: 2, Latency: results.Latency{P50: 10, P95: 20, P99: 30, Mean: 12, Max: 40},
			Status: map[string]int64{"200": 100}}},
	}
	dir, err := runner.Save(context.Background(), out, run, sinks.Standard(out, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	back, err := store.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{results.RunFile, results.SummaryFile}; !slices.Equal(back.Files, want) {
		t.Errorf("run.json lists %v, want %v", back.Files, want)
	}
	if _, err := os.Stat(filepath.Join(dir, results.TimelineFile)); err == nil {
		t.Error("an import has no timeline, yet timeline.json was written")
	}
	md, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil || !strings.Contains(string(md), "hey-3x") {
		t.Errorf("summary.md: %v, %.100q", err, md)
	}
	js, _ := os.ReadFile(filepath.Join(dir, results.RunFile))
	if strings.Contains(string(js)+string(md), "hunter22") {
		t.Error("the URL password was written")
	}
	rows, err := store.History(out, store.HistoryQuery{})
	if err != nil || len(rows) != 1 {
		t.Errorf("history rows %d, %v; want the import indexed", len(rows), err)
	}
}

// TestOptionalWarns: an optional file that cannot be rendered is a
// warning, not the run's error; a plain one is the error.
func TestOptionalWarns(t *testing.T) {
	broken := sinks.File("x.html", func(io.Writer, *runner.Outcome) error { return errors.New("no histograms") })
	var log bytes.Buffer
	o := &runner.Outcome{Dir: t.TempDir()}
	if err := sinks.Optional(broken, &log).Write(context.Background(), o); err != nil || !strings.Contains(log.String(), "warning") {
		t.Errorf("optional: error %v, log %q; want a warning only", err, log.String())
	}
	if err := broken.Write(context.Background(), o); err == nil || !strings.Contains(err.Error(), "rendering x.html") {
		t.Errorf("plain: error %v, want the rendering error", err)
	}
	if sinks.Optional(broken, nil).File() != "x.html" {
		t.Error("an optional file sink does not name its file")
	}
}
